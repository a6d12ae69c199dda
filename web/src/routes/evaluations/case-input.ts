/** A case's input as one line of text: the message, or a conversation's last message. */
export function caseInputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  const last: unknown = input.at(-1);
  return typeof last === 'object' && last !== null && 'content' in last && typeof last.content === 'string' ? last.content : '';
}
