import { basename } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ExtractionFailure } from './extraction-failure.ts';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from './extraction-limits.ts';
import type { ExtractionReply, ExtractionRequest } from './extraction-protocol.ts';
import type { DocumentChunks } from './prepare-document.ts';
import type { SplitOptions } from './split-documents.ts';

export type DocumentExtractorOptions = {
  /** Threads extracting at once (default 1: the server's own thread needs the other core). */
  workers?: number;
  /** Wall time one document may take; past it its thread is ended and a fresh one started. */
  timeoutMs?: number;
  /** A thread without work this long is ended (started again when needed). */
  idleMs?: number;
  /** The V8 heap of an extraction thread. */
  maxHeapMb?: number;
  /** How far the process's resident memory may grow while one document is extracted (buffers outside the heap). */
  memoryBudgetMb?: number;
  /** Documents one owner (an account) may have queued or in extraction at once. */
  perOwner?: number;
  /** Documents of accounts that may wait for a thread. */
  maxQueued?: number;
  limits?: Partial<ExtractionLimits>;
};

export type ExtractionJob = {
  /** The file's name or path inside its collection; its extension decides the format. */
  path: string;
  content: Uint8Array;
  /** The account whose upload this is; none for the operator's knowledge folder (not counted against any bound). */
  owner?: string;
  signal?: AbortSignal;
  split?: SplitOptions;
};

type Pending = ExtractionJob & { id: number; resolve(document: DocumentChunks): void; reject(error: ExtractionFailure): void };
type Slot = { worker?: Worker; ready?: boolean; armJob?: () => void; job?: Pending; exitError?: Error; timers: Array<ReturnType<typeof setTimeout>>; idle?: ReturnType<typeof setTimeout> };

/**
 * Turns uploaded and folder documents into chunks off the server's thread. Parsing a
 * PDF or deep HTML is CPU and memory in proportion to what the file claims, not to its
 * size, so it runs in a small pool of worker threads with a heap limit, a wall-time
 * limit (the thread is ended, not asked), a memory watch for buffers outside the heap,
 * and bounds per account so that one account's files cannot occupy the pool. Threads
 * start on first need and end when idle or on close().
 */
export class DocumentExtractor {
  readonly limits: ExtractionLimits;
  readonly #options: Required<Omit<DocumentExtractorOptions, 'limits'>>;
  readonly #slots: Slot[];
  readonly #queue: Pending[] = [];
  readonly #perOwner = new Map<string, number>();
  readonly #lastServed = new Map<string, number>();
  #served = 0;
  #lastId = 0;

  constructor(options: DocumentExtractorOptions = {}) {
    this.limits = { ...DEFAULT_EXTRACTION_LIMITS, ...options.limits };
    this.#options = {
      workers: options.workers ?? 1,
      timeoutMs: options.timeoutMs ?? 30_000,
      idleMs: options.idleMs ?? 30_000,
      maxHeapMb: options.maxHeapMb ?? 512,
      memoryBudgetMb: options.memoryBudgetMb ?? 1024,
      perOwner: options.perOwner ?? 2,
      maxQueued: options.maxQueued ?? 32,
    };
    this.#slots = Array.from({ length: Math.max(1, this.#options.workers) }, () => ({ timers: [] }));
  }

  /** The document's title and chunks; rejects with an ExtractionFailure that names the file. */
  extract(job: ExtractionJob): Promise<DocumentChunks> {
    const fileName = basename(job.path);
    if (job.owner !== undefined) {
      if ((this.#perOwner.get(job.owner) ?? 0) >= this.#options.perOwner) {
        return Promise.reject(
          new ExtractionFailure('account_busy', `'${fileName}' waits for ${this.#options.perOwner} other documents of this account to finish extracting; try again when they have.`),
        );
      }
      if (this.#queue.filter((queued) => queued.owner !== undefined).length >= this.#options.maxQueued) {
        return Promise.reject(new ExtractionFailure('pool_busy', `Too many documents are waiting to be extracted; try '${fileName}' again shortly.`));
      }
    }
    if (job.signal?.aborted) return Promise.reject(stopped(fileName));
    return new Promise<DocumentChunks>((resolve, reject) => {
      const pending: Pending = { ...job, id: ++this.#lastId, resolve, reject };
      if (job.owner !== undefined) this.#perOwner.set(job.owner, (this.#perOwner.get(job.owner) ?? 0) + 1);
      job.signal?.addEventListener('abort', () => this.#abort(pending), { once: true });
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** Ends every thread; what was queued or running fails. The extractor starts threads again if used afterwards. */
  async close(): Promise<void> {
    for (const pending of this.#queue.splice(0)) this.#settle(pending, stopped(basename(pending.path)));
    await Promise.all(
      this.#slots.map(async (slot) => {
        if (slot.job) this.#fail(slot, stopped(basename(slot.job.path)));
        clearTimeout(slot.idle);
        const worker = slot.worker;
        slot.worker = undefined;
        await worker?.terminate();
      }),
    );
  }

  /** Threads running now (for tests and metrics). */
  get threads(): number {
    return this.#slots.filter((slot) => slot.worker !== undefined).length;
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.job || this.#queue.length === 0) continue;
      const [job] = this.#queue.splice(this.#nextIndex(), 1);
      if (job) this.#run(slot, job);
    }
  }

  /** Round-robin by owner: the queued job whose owner was served longest ago (the folder counts as one owner). */
  #nextIndex(): number {
    let best = 0;
    let bestServed = Number.POSITIVE_INFINITY;
    this.#queue.forEach((queued, index) => {
      const served = this.#lastServed.get(queued.owner ?? '') ?? 0;
      if (served < bestServed) {
        best = index;
        bestServed = served;
      }
    });
    return best;
  }

  #run(slot: Slot, job: Pending): void {
    if (this.#lastServed.size > 10_000) this.#lastServed.clear();
    this.#lastServed.set(job.owner ?? '', ++this.#served);
    clearTimeout(slot.idle);
    slot.job = job;
    const worker = (slot.worker ??= this.#start(slot));
    // A copy of the bytes is transferred: the caller's Buffer may be a view into a shared pool.
    const content = new Uint8Array(job.content);
    const fileName = basename(job.path);
    const request: ExtractionRequest = { id: job.id, path: job.path, content, limits: this.limits, ...(job.split && { split: job.split }) };
    worker.postMessage(request, [content.buffer]);
    // The limits count from when the thread can work: its start (loading modules) is not the file's doing.
    const arm = () => {
      const startRss = process.memoryUsage.rss();
      const budget = this.#options.memoryBudgetMb * 1024 * 1024;
      slot.timers.push(
        setTimeout(() => this.#fail(slot, new ExtractionFailure('timed_out', `'${fileName}' took longer than ${this.#options.timeoutMs / 1000} s to extract.`), true), this.#options.timeoutMs),
        setInterval(() => {
          if (process.memoryUsage.rss() - startRss > budget) this.#fail(slot, outOfMemory(fileName), true);
        }, 200),
      );
    };
    if (slot.ready) arm();
    else {
      slot.armJob = arm;
      // A thread that never becomes ready must not hold the job forever either.
      slot.timers.push(setTimeout(() => this.#fail(slot, new ExtractionFailure('timed_out', `The extraction of '${fileName}' could not start.`), true), 60_000));
    }
  }

  #start(slot: Slot): Worker {
    const worker = new Worker(workerScript(), { resourceLimits: { maxOldGenerationSizeMb: this.#options.maxHeapMb } });
    slot.ready = false;
    worker.on('message', (reply: ExtractionReply) => {
      if (slot.worker !== worker) return;
      if ('ready' in reply) {
        slot.ready = true;
        slot.armJob?.();
        slot.armJob = undefined;
        return;
      }
      if (slot.job?.id !== reply.id) return;
      const job = slot.job;
      this.#finish(slot);
      if (reply.ok) this.#settle(job, reply.document);
      else this.#settle(job, new ExtractionFailure(reply.kind, reply.message));
    });
    worker.on('error', (error) => {
      if (slot.worker === worker) slot.exitError = error;
    });
    worker.on('exit', () => {
      if (slot.worker !== worker) return;
      const error = slot.exitError;
      slot.worker = undefined;
      slot.exitError = undefined;
      if (!slot.job) return;
      const fileName = basename(slot.job.path);
      const outOfHeap = (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      // A thread that ended before it was ready failed to start: the server's fault, not the file's.
      if (!slot.ready) this.#fail(slot, new ExtractionFailure('stopped', `The document extraction thread could not start (${error?.message ?? 'it ended'}).`));
      else this.#fail(slot, outOfHeap ? outOfMemory(fileName) : new ExtractionFailure('unreadable', `'${fileName}' could not be read (${error?.message ?? 'the extraction stopped'}).`));
    });
    // Never what keeps a process alive, so a CLI run ends when its work does. After the
    // listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
    return worker;
  }

  /** Fails the slot's job; `end` also ends its thread (it may still be busy with the file). */
  #fail(slot: Slot, failure: ExtractionFailure, end = false): void {
    const job = slot.job;
    if (!job) return;
    if (end && slot.worker) {
      const worker = slot.worker;
      slot.worker = undefined;
      void worker.terminate();
    }
    this.#finish(slot);
    this.#settle(job, failure);
  }

  #finish(slot: Slot): void {
    for (const timer of slot.timers.splice(0)) clearTimeout(timer);
    slot.job = undefined;
    slot.armJob = undefined;
    clearTimeout(slot.idle);
    if (slot.worker) {
      const worker = slot.worker;
      slot.idle = setTimeout(() => {
        if (slot.worker !== worker || slot.job) return;
        slot.worker = undefined;
        void worker.terminate();
      }, this.#options.idleMs);
      slot.idle.unref();
    }
    queueMicrotask(() => this.#pump());
  }

  #settle(job: Pending, outcome: DocumentChunks | ExtractionFailure): void {
    if (job.owner !== undefined) {
      const left = (this.#perOwner.get(job.owner) ?? 1) - 1;
      if (left > 0) this.#perOwner.set(job.owner, left);
      else this.#perOwner.delete(job.owner);
    }
    if (outcome instanceof ExtractionFailure) job.reject(outcome);
    else job.resolve(outcome);
  }

  /** A client that went away: its queued job leaves the queue, a running one ends its thread. */
  #abort(job: Pending): void {
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) {
      this.#queue.splice(queued, 1);
      this.#settle(job, stopped(basename(job.path)));
      return;
    }
    const slot = this.#slots.find((candidate) => candidate.job === job);
    if (slot) this.#fail(slot, stopped(basename(job.path)), true);
  }
}

const stopped = (fileName: string) => new ExtractionFailure('stopped', `The extraction of '${fileName}' was stopped.`);
const outOfMemory = (fileName: string) => new ExtractionFailure('out_of_memory', `'${fileName}' needs more memory to extract than one document may use.`);

/** The compiled thread beside the compiled server; from source, its tsx bootstrap. */
const workerScript = (): URL => (import.meta.url.endsWith('.ts') ? new URL('./extraction-worker-boot.mjs', import.meta.url) : new URL('./extraction-worker.js', import.meta.url));

let shared: DocumentExtractor | undefined;

/** The process's extractor: one pool for uploads and folder syncs alike, so the bounds hold for all of them. */
export function sharedDocumentExtractor(): DocumentExtractor {
  shared ??= new DocumentExtractor();
  return shared;
}
