/**
 * Canonical tool-call arguments are the JSON text the model produced; most wire
 * formats (Anthropic `input`, Gemini `args`, LangChain `args`) want an object.
 * Empty, invalid or non-object JSON (a truncated call) becomes `{}`: the finish
 * reason tells the client why, and a provider never receives an invalid shape.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
