import type { ModelMessage } from '../../core/model-types.ts';

/** An unstored (`store: false`) response a WebSocket connection keeps so its next turn can continue it. */
export type RememberedResponse = {
  agentId: string;
  /** Everything the model saw and produced: the next turn's history. */
  history: ModelMessage[];
  /** Its output items, for `item_reference`. */
  output: Record<string, unknown>[];
};

/** Bounds one connection's memory: a long session keeps its latest unstored responses. */
const MAX_REMEMBERED = 64;

/**
 * The unstored responses of one WebSocket connection, in its memory only (gone with the
 * connection, never in the database). A continuation that fails forgets the response it
 * continued, so a retry answers `previous_response_not_found`, as an unknown id does.
 */
export class ConnectionResponses {
  readonly #responses = new Map<string, RememberedResponse>();

  get(id: string): RememberedResponse | undefined {
    return this.#responses.get(id);
  }

  remember(id: string, response: RememberedResponse): void {
    this.#responses.set(id, response);
    if (this.#responses.size > MAX_REMEMBERED) this.#responses.delete(this.#responses.keys().next().value as string);
  }

  forget(id: string): void {
    this.#responses.delete(id);
  }
}
