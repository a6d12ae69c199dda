/**
 * Sends `items` in order through `send`, which returns a promise only while the client
 * is not keeping up: the next item waits for that promise, and nothing waits otherwise (a
 * promise per frame showed in stream profiles). Undefined when all went out at once.
 */
export function sendInOrder<Item>(items: readonly Item[], send: (item: Item) => Promise<void> | undefined, from = 0): Promise<void> | undefined {
  for (let index = from; index < items.length; index += 1) {
    const full = send(items[index] as Item);
    if (full) return index + 1 < items.length ? full.then(() => sendInOrder(items, send, index + 1)) : full;
  }
  return undefined;
}
