/**
 * The server's messages as people read them beside a field: without the API's field
 * name (the field is right there), zod's comparisons in words, waits in minutes.
 */
export function plainMessage(message: string, param: string | null): string {
  const withoutField = param ? message.replace(new RegExp(`^Invalid '${param.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'(?: for [^:]+)?: `), '') : message;
  const text = withoutField
    .replace(/Too small: expected string to have >=1 characters?/g, 'required')
    .replace(/Too big: expected (?:string|array) to have <=(\d+) (characters|items)/g, 'at most $1 $2')
    .replace(/Too small: expected (?:string|array) to have >=(\d+) (characters|items)/g, 'at least $1 $2')
    .replace(/Too big: expected number to be <=?(\S+?)(?=[.;,]|$)/g, 'at most $1')
    .replace(/Too small: expected number to be >=?(\S+?)(?=[.;,]|$)/g, 'at least $1')
    .replace(/Invalid input: expected (\w+), received \w+/g, 'expected a $1')
    .replace(/try again in (\d+) s\b/g, (_match, seconds: string) => `try again in ${waitInWords(Number(seconds))}`);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function waitInWords(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? 'a minute' : `${minutes} minutes`;
}
