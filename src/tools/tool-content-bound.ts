/** What one tool result may put in front of the model: a runaway tool (local or MCP) must not flood the context. */
export const MAX_TOOL_CONTENT_CHARS = 100_000;

/** The content cut to `maxChars`, saying so in the text the model reads. */
export function boundToolContent(content: string, maxChars: number = MAX_TOOL_CONTENT_CHARS): string {
  if (content.length <= maxChars) return content;
  return `${content.slice(0, maxChars)}\n…[truncated ${content.length - maxChars} characters]`;
}
