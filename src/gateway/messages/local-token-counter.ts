import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * o200k_base token counts (OpenAI's current tokenizer) from a worker thread. Building the
 * tokenizer's rank tables takes the better part of a second of CPU (several on a busy
 * machine), and encoding a large prompt takes its time too: on the main thread either
 * would stall every other request of the process. The worker starts when warmed (after
 * the server is ready) or on the first count, and does not keep the process alive.
 */

type Reply = { id: number; counts: number[] } | { id: number; error: string } | { ready: true } | { failed: string };

// CommonJS, because an evaluated worker has no module URL to resolve a bare specifier from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let encoding;
try {
  encoding = require(workerData.tiktoken).getEncoding('o200k_base');
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ failed: String(error) });
}
parentPort.on('message', ({ id, texts }) => {
  try {
    parentPort.postMessage({ id, counts: texts.map((text) => (text === '' ? 0 : encoding.encode(text).length)) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
`;

type Pending = { resolve: (counts: number[]) => void; reject: (error: Error) => void };

class TokenCounterWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly ready: Promise<void>;
  #nextId = 0;

  constructor() {
    const tiktoken = createRequire(import.meta.url).resolve('js-tiktoken');
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { tiktoken } });
    this.ready = new Promise((resolve, reject) => {
      this.#worker.on('message', (reply: Reply) => {
        if ('ready' in reply) return resolve();
        if ('failed' in reply) return reject(new Error(`the tokenizer did not load: ${reply.failed}`));
        const pending = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        if ('counts' in reply) pending?.resolve(reply.counts);
        else pending?.reject(new Error(reply.error));
      });
      this.#worker.on('error', (error) => this.#failAll(error, reject));
      this.#worker.on('exit', (code) => this.#failAll(new Error(`the tokenizer thread exited (code ${code})`), reject));
    });
    // After the listeners, which ref the thread's port again: the thread never keeps a process alive.
    this.#worker.unref();
  }

  async count(texts: string[]): Promise<number[]> {
    await this.ready;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, texts });
    });
  }

  #failAll(error: Error, rejectReady: (error: Error) => void): void {
    if (counter === this) counter = undefined;
    rejectReady(error);
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

let counter: TokenCounterWorker | undefined;

const started = (): TokenCounterWorker => (counter ??= new TokenCounterWorker());

/** Starts the tokenizer thread ahead of the first count; failures surface on that count. */
export function warmLocalTokenCounter(): void {
  started().ready.catch(() => undefined);
}

/** Tokens of each text, in order. */
export function countLocalTokens(texts: string[]): Promise<number[]> {
  return started().count(texts);
}
