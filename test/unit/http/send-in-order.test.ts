import { describe, expect, it } from 'vitest';
import { sendInOrder } from '../../../src/http/send-in-order.ts';

describe('sendInOrder', () => {
  it('sends everything at once, with nothing to wait for, while the client keeps up', () => {
    const sent: string[] = [];
    expect(sendInOrder(['a', 'b', 'c'], (item) => void sent.push(item))).toBeUndefined();
    expect(sent).toEqual(['a', 'b', 'c']);
  });

  it('holds the next item until a full socket drains, keeping the order', async () => {
    const sent: string[] = [];
    let drain: () => void = () => undefined;
    const pending = sendInOrder(['a', 'b', 'c'], (item) => {
      sent.push(item);
      return item === 'a' ? new Promise<void>((done) => (drain = done)) : undefined;
    });
    expect(pending).toBeInstanceOf(Promise);
    expect(sent).toEqual(['a']);
    drain();
    await pending;
    expect(sent).toEqual(['a', 'b', 'c']);
  });
});
