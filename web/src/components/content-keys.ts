/**
 * React keys for items that have no id of their own (diff lines, prompt messages, search
 * hits): what each item shows, numbered when the same content repeats, so a key follows its
 * item's content rather than its place in the list.
 */
export function withContentKeys<T>(items: readonly T[], identity: (item: T) => string): Array<{ key: string; item: T }> {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const content = identity(item);
    const repeat = seen.get(content) ?? 0;
    seen.set(content, repeat + 1);
    return { key: `${repeat}:${content}`, item };
  });
}
