/**
 * pdf.js inflates a compressed stream whole through the global DecompressionStream
 * before it reads a byte of it, so a 400 kB file whose content stream inflates to
 * gigabytes would be held in memory at once. Inside the extraction thread the global is
 * replaced by one that stops a stream at a byte budget: pdf.js then sees a truncated
 * stream and the extraction, seeing `exceeded`, refuses the document.
 */
export type InflationBudget = { maxStreamBytes: number; exceeded: boolean };

let current: InflationBudget = { maxStreamBytes: Number.POSITIVE_INFINITY, exceeded: false };

/** Starts the budget of one document; streams opened from now on count against it. */
export function startInflationBudget(maxStreamBytes: number): InflationBudget {
  current = { maxStreamBytes, exceeded: false };
  return current;
}

/** Replaces globalThis.DecompressionStream in this thread (call once, before pdf.js runs). */
export function installBoundedDecompression(): void {
  const Native = globalThis.DecompressionStream;
  class BoundedDecompressionStream {
    readonly writable: DecompressionStream['writable'];
    readonly readable: ReadableStream<Uint8Array>;

    constructor(format: ConstructorParameters<typeof DecompressionStream>[0]) {
      const inner = new Native(format);
      const budget = current;
      let inflated = 0;
      this.writable = inner.writable;
      this.readable = inner.readable.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            inflated += chunk.byteLength;
            if (inflated <= budget.maxStreamBytes) return controller.enqueue(chunk);
            budget.exceeded = true;
            // Ends the readable side (pdf.js keeps what came so far) and stops the inflater.
            controller.terminate();
          },
        }),
      );
    }
  }
  globalThis.DecompressionStream = BoundedDecompressionStream as unknown as typeof DecompressionStream;
}
