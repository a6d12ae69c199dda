import { z } from 'zod';

/**
 * What `junction knowledge index` prints without --json. On a terminal, progress
 * redraws one line in place; anywhere else (a pipe, a log file, CI) it is plain lines:
 * one per collection when it is done, and one every few seconds for a long one, so a
 * log shows it moving without a line per document. The summary on stdout is plain
 * lines either way.
 */

const ProgressSchema = z.object({
  account: z.string().optional(),
  collection: z.string(),
  documentsDone: z.number(),
  documentsTotal: z.number(),
  chunksEmbedded: z.number(),
  chunksReused: z.number(),
});

const ResultSchema = z.object({
  data: z.array(
    z.object({
      account: z.string(),
      collections: z.array(ProgressSchema.extend({ documentsRemoved: z.number(), chunksTotal: z.number() })),
      collectionsRemoved: z.array(z.string()),
    }),
  ),
  embedding_model: z.string().nullable(),
});

/** In a pipe, a collection still indexing after this long gets a line anyway. */
const PLAIN_PROGRESS_INTERVAL_MS = 5_000;

type ProgressStream = Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };

export function indexProgressWriter(stream: ProgressStream, now: () => number = Date.now) {
  let redrawn = false;
  let lastPlainLineAt = now();
  const finished = new Set<string>();
  return {
    write(update: Record<string, unknown>): void {
      const progress = ProgressSchema.safeParse(update);
      if (!progress.success) return;
      const { collection, documentsDone, documentsTotal, chunksEmbedded, chunksReused, account } = progress.data;
      const line = `${collection}: ${documentsDone}/${plural(documentsTotal, 'document')}, ${plural(chunksEmbedded, 'chunk')} embedded, ${chunksReused} reused`;
      if (stream.isTTY) {
        // Carriage return, then erase to the end of the line: only a terminal understands either.
        stream.write(`\r${line}\x1b[K`);
        redrawn = true;
        return;
      }
      const key = `${account ?? ''}\u0000${collection}`;
      const done = documentsDone === documentsTotal;
      if (done ? finished.has(key) : now() - lastPlainLineAt < PLAIN_PROGRESS_INTERVAL_MS) return;
      if (done) finished.add(key);
      lastPlainLineAt = now();
      stream.write(`${line}\n`);
    },
    end(): void {
      if (redrawn) stream.write('\n');
    },
  };
}

/** One line per collection, grouped by account, then the embedding model. */
export function formatIndexResult(result: unknown): string {
  const parsed = ResultSchema.safeParse(result);
  if (!parsed.success) return `${JSON.stringify(result, null, 2)}\n`;
  const lines: string[] = [];
  for (const report of parsed.data.data) {
    lines.push(`account ${report.account}`);
    if (report.collections.length === 0 && report.collectionsRemoved.length === 0) lines.push('  no collections (no folders under the knowledge folder)');
    for (const collection of report.collections) {
      lines.push(
        `  ${collection.collection}: ${plural(collection.documentsTotal, 'document')}, ${plural(collection.chunksTotal, 'chunk')} ` +
          `(${collection.chunksEmbedded} embedded, ${collection.chunksReused} reused), ${plural(collection.documentsRemoved, 'document')} removed`,
      );
    }
    for (const removed of report.collectionsRemoved) lines.push(`  ${removed}: removed (its folder is gone)`);
  }
  lines.push(`embedding model: ${parsed.data.embedding_model ?? 'none (full-text search only; set JUNCTION_EMBEDDING_MODEL for vectors)'}`);
  return `${lines.join('\n')}\n`;
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
