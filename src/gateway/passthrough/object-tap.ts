import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { SeenObject } from './passthrough-owners.ts';

/** A JSON answer larger than this is not read for objects (big lists): it streams through. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export type FoundObjects = { answered: SeenObject[]; implied: SeenObject[] };

/**
 * Finds the provider objects a pass-through answer carries, and holds back the bytes
 * that show them until they are recorded: a client that reads an id must find it its
 * own on its very next call. A JSON answer is held whole (up to MAX_JSON_BYTES; a larger
 * one goes through unread); SSE goes through event by event, so a stream records the
 * Response, thread or Run it creates as soon as the event naming it is complete.
 */
export class ObjectTap {
  readonly #decoder = new TextDecoder();
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #overflowed = false;
  #parser: EventSourceParser | undefined;
  /** Each object's latest state, recorded at the end of the answer. */
  readonly #latest = new Map<string, Json>();
  /** Objects not seen before in this answer, recorded before the bytes naming them go out. */
  #fresh = new Map<string, Json>();

  constructor(contentType: string) {
    if (contentType.includes('text/event-stream')) {
      this.#parser = createParser({ onEvent: (message) => this.#onEvent(message.data) });
    }
  }

  /** Takes a chunk; returns the bytes that may go to the client once takeFound() is recorded. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#parser) {
      this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
      return [chunk];
    }
    if (this.#overflowed) return [chunk];
    this.#held.push(chunk);
    this.#heldBytes += chunk.byteLength;
    if (this.#heldBytes <= MAX_JSON_BYTES) return [];
    this.#overflowed = true;
    const released = this.#held;
    this.#held = [];
    return released;
  }

  /** The objects first seen since the last call (SSE), with the ones they imply (see impliedObjects). */
  takeFound(): FoundObjects {
    const objects = [...this.#fresh.values()];
    this.#fresh = new Map();
    return found(objects);
  }

  /** At the end of the answer: the objects still to record, then the bytes still held. */
  finish(): FoundObjects & { rest: Uint8Array[] } {
    if (this.#parser) {
      this.#parser.feed(`${this.#decoder.decode()}\n\n`);
    } else if (!this.#overflowed && this.#heldBytes > 0) {
      try {
        this.#keep(JSON.parse(Buffer.concat(this.#held).toString('utf8')));
      } catch {
        // Not JSON (an error page): nothing to record.
      }
    }
    const rest = this.#held;
    this.#held = [];
    this.#fresh = new Map();
    return { ...found([...this.#latest.values()]), rest };
  }

  #onEvent(data: string): void {
    try {
      const payload: unknown = JSON.parse(data);
      // Responses events wrap the object in `response`; Assistants events are the object.
      this.#keep(isObject(payload) && isObject(payload['response']) ? payload['response'] : payload);
    } catch {
      // `[DONE]` and other non-JSON frames carry no object.
    }
  }

  #keep(value: unknown): void {
    if (!isObject(value) || typeof value['id'] !== 'string' || typeof value['object'] !== 'string') return;
    // A delta is a piece of an object already seen, a list holds objects this call did not create.
    if (value['object'] === 'list' || value['object'].endsWith('.delta') || value['deleted'] === true) return;
    // A later state that implies more (a completed Response's items, a batch's output file) is recorded at once too.
    const before = this.#latest.get(value['id']);
    if (!before || impliedObjects(value).length > impliedObjects(before).length) this.#fresh.set(value['id'], value);
    this.#latest.set(value['id'], value);
  }
}

const found = (objects: Json[]): FoundObjects => ({ answered: objects.flatMap(seen), implied: objects.flatMap(impliedObjects) });

const seen = (object: Json): SeenObject[] => (typeof object['id'] === 'string' && typeof object['object'] === 'string' ? [{ id: object['id'], kind: object['object'], snapshot: object }] : []);

/**
 * Objects the provider created along with one it answered: a Run's new thread (POST
 * /threads/runs), a batch's output and error files, a Response's output items (which a
 * later `item_reference` may name).
 */
function impliedObjects(object: Json): SeenObject[] {
  const implied: SeenObject[] = [];
  if (object['object'] === 'thread.run' && typeof object['thread_id'] === 'string') {
    implied.push({ id: object['thread_id'], kind: 'thread', snapshot: { id: object['thread_id'], object: 'thread', created_at: object['created_at'] ?? null, metadata: {} } });
  }
  if (object['object'] === 'batch') {
    for (const field of ['output_file_id', 'error_file_id']) {
      const id = object[field];
      if (typeof id === 'string') implied.push({ id, kind: 'file', snapshot: { id, object: 'file', purpose: 'batch_output', created_at: object['created_at'] ?? null } });
    }
  }
  if (object['object'] === 'response' && Array.isArray(object['output'])) {
    for (const item of object['output']) {
      if (isObject(item) && typeof item['id'] === 'string') implied.push({ id: item['id'], kind: 'response.item', snapshot: { id: item['id'], object: 'response.item', type: item['type'] ?? null } });
    }
  }
  return implied;
}
