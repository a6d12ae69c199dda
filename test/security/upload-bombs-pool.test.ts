import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentExtractor } from '../../src/knowledge/document-extractor.ts';
import { ExtractionFailure, extractionError } from '../../src/knowledge/extraction-failure.ts';
import { inflateBombPdf } from '../support/pdf-fixtures.ts';

/**
 * The pool uploads are extracted in: a file that runs too long has its thread ended,
 * one account cannot hold more than its places, and a client that leaves frees the
 * thread. The slow file is the inflate bomb with its limits lifted, so only time stops it:
 * the pool's clock is vitest's (its time limit fires when the test moves the clock on).
 */
describe('the extraction pool', () => {
  const slowLimits = { maxInflatedStreamBytes: 2 ** 31, maxTextChars: 1e9, maxChunks: 1e9 };
  let slowBomb: Buffer;
  beforeAll(() => {
    slowBomb = inflateBombPdf(200 * 1024 * 1024);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a thread that passes the time limit, answers timed_out, and serves the next file from a fresh thread', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const extractor = new DocumentExtractor({ timeoutMs: 3_000, limits: slowLimits });
    try {
      await extractor.extract({ path: 'warm.md', content: Buffer.from('# Warm\n\nup') });
      let outcome: unknown;
      const slow = extractor.extract({ path: 'slow.pdf', content: slowBomb }).then(
        () => (outcome = 'extracted'),
        (error: unknown) => (outcome = error),
      );
      // The bomb is still being inflated: it has run for a millisecond less than its limit, then for its limit.
      await vi.advanceTimersByTimeAsync(2_999);
      expect(outcome).toBeUndefined();
      expect(extractor.threads).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      await slow;
      expect(outcome).toBeInstanceOf(ExtractionFailure);
      expect(outcome).toMatchObject({ kind: 'timed_out', message: "'slow.pdf' took longer than 3 s to extract." });
      expect(extractionError(outcome as ExtractionFailure).status).toBe(400);
      expect(extractor.threads).toBe(0);
      const next = await extractor.extract({ path: 'next.md', content: Buffer.from('# Next\n\nstill served') });
      expect(next.chunks[0]?.content).toBe('still served');
    } finally {
      await extractor.close();
    }
    expect(extractor.threads).toBe(0);
  }, 60_000);

  it("bounds one account's files in the pool and serves another account's file before that account's next one", async () => {
    const extractor = new DocumentExtractor({ timeoutMs: 3_000, perOwner: 2, limits: slowLimits });
    try {
      await extractor.extract({ path: 'warm.md', content: Buffer.from('# Warm\n\nup') });
      const finished: string[] = [];
      const track = (path: string, owner: string) =>
        extractor.extract({ path, content: path === 'slow.pdf' ? slowBomb : Buffer.from(`text of ${path}`), owner }).then(
          () => finished.push(path),
          (error: unknown) => finished.push(`${path}: ${(error as ExtractionFailure).kind}`),
        );
      const jobs = [track('slow.pdf', 'account-a'), track('a-second.md', 'account-a')];
      await expect(extractor.extract({ path: 'a-third.md', content: Buffer.from('x'), owner: 'account-a' })).rejects.toMatchObject({ kind: 'account_busy' });
      jobs.push(track('b-first.md', 'account-b'));
      await Promise.all(jobs);
      expect(finished).toEqual(['slow.pdf: timed_out', 'b-first.md', 'a-second.md']);
      // The account's places are free again.
      expect((await extractor.extract({ path: 'again.md', content: Buffer.from('again'), owner: 'account-a' })).chunks).toHaveLength(1);
    } finally {
      await extractor.close();
    }
  }, 60_000);

  it('stops a running extraction when its client goes away', async () => {
    const extractor = new DocumentExtractor({ timeoutMs: 30_000, limits: slowLimits });
    try {
      await extractor.extract({ path: 'warm.md', content: Buffer.from('# Warm\n\nup') });
      const controller = new AbortController();
      const running = extractor.extract({ path: 'slow.pdf', content: slowBomb, signal: controller.signal }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      // Ended at the abort, while the bomb was still being inflated: not after its thread let go.
      expect(extractor.threads).toBe(0);
      expect(await running).toMatchObject({ kind: 'stopped' });
    } finally {
      await extractor.close();
    }
  }, 60_000);

  it('answers out_of_memory (413) when a thread passes its heap limit, and starts a fresh one', async () => {
    const extractor = new DocumentExtractor({ maxHeapMb: 64, limits: { maxTextChars: 1e9, maxChunks: 1e9 } });
    try {
      await extractor.extract({ path: 'warm.md', content: Buffer.from('# Warm\n\nup') });
      const failure = await extractor.extract({ path: 'big.md', content: Buffer.from('Customers may return a kettle within 45 days.\n\n'.repeat(600_000)) }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ kind: 'out_of_memory', message: "'big.md' needs more memory to extract than one document may use." });
      expect(extractionError(failure as ExtractionFailure).status).toBe(413);
      expect((await extractor.extract({ path: 'after.md', content: Buffer.from('# After\n\nfine') })).chunks).toHaveLength(1);
    } finally {
      await extractor.close();
    }
  }, 60_000);
});
