/**
 * Knowledge indexing throughput through the real path: a knowledge folder of generated
 * Markdown documents indexed by the services' knowledge sync, as `npm start` indexes it
 * (extraction in the worker pool, splitting, an embedding call per 64 chunks through the
 * gateway pipeline, billed, to a fake OpenAI embeddings upstream on 127.0.0.1, and each
 * document written in its own transaction with the HNSW and GIN indexes kept up to date).
 * On a fresh store of the engine under test: PGlite in a data folder, or a scratch
 * PostgreSQL database when DATABASE_URL is set.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { createServices } from '../src/assembly/services.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript } from './child-process.ts';
import { random, vocabulary, zipfSampler } from './knowledge-search.ts';

/** One section of about 120 words per chunk: a section under the splitter's 1,000 characters is one chunk. */
const SECTIONS_PER_DOCUMENT = 100;
const WORDS_PER_SECTION = 120;

export type IngestResult = {
  engine: string;
  documents: number;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  /** Calls the embeddings upstream answered, and the texts they held. */
  embeddingCalls: number;
  embeddedTexts: number;
};

/** Writes documents of SECTIONS_PER_DOCUMENT one-chunk sections until `chunks` sections are written. */
function writeCorpus(folder: string, chunks: number): number {
  const next = random(7);
  const words = vocabulary(next);
  const pick = zipfSampler(words.length, next);
  const collection = join(folder, 'corpus');
  mkdirSync(collection, { recursive: true });
  let documents = 0;
  for (let written = 0; written < chunks; documents += 1) {
    const sections: string[] = [`# Document ${documents}`];
    for (let section = 0; section < SECTIONS_PER_DOCUMENT && written < chunks; section += 1, written += 1) {
      sections.push(`## Section ${section}`, Array.from({ length: WORDS_PER_SECTION }, () => words[pick()]).join(' '));
    }
    writeFileSync(join(collection, `document-${documents}.md`), `${sections.join('\n\n')}\n`);
  }
  return documents;
}

export async function measureIngest(options: { chunks: number; log: (line: string) => void }): Promise<IngestResult> {
  const folder = mkdtempSync(join(tmpdir(), 'junction-knowledge-ingest-'));
  const baseUrl = process.env.DATABASE_URL || undefined;
  const scratch = baseUrl ? await createScratchDatabase(baseUrl, 'junction_bench') : undefined;
  const upstream = await startScript('bench/fake-embeddings-upstream.ts', {});
  try {
    const documents = writeCorpus(join(folder, 'knowledge'), options.chunks);
    const configFile = join(folder, 'junction.yaml');
    writeFileSync(configFile, 'models:\n  openai/bench-embed:\n    capabilities: [embeddings]\n    prices: { input: 0.02 }\n');
    const env = {
      OPENAI_API_KEY: 'upstream',
      OPENAI_BASE_URL: upstream.info.url ?? '',
      JUNCTION_CONFIG: configFile,
      JUNCTION_EMBEDDING_MODEL: 'openai/bench-embed',
      JUNCTION_KNOWLEDGE_DIR: join(folder, 'knowledge'),
      LOG_LEVEL: 'warn',
    };
    const config = readEnvConfig({ ...env, JUNCTION_DATA_DIR: join(folder, 'data'), ...(scratch ? { DATABASE_URL: scratch.url } : {}) });
    const services = await createServices(config, { env, loadAgents: false });
    try {
      await runAdminCommand(services, { command: 'credits.grant', amount: '1000000', currency: 'USD' });
      options.log(`knowledge ingest on ${services.db.engine}: ${options.chunks} chunks in ${documents} documents…`);
      const start = performance.now();
      const report = await services.knowledge.sync(services.defaultAccount.id);
      const seconds = (performance.now() - start) / 1000;
      const chunks = report.collections.reduce((sum, collection) => sum + collection.chunksTotal, 0);
      const stats = (await (await fetch(new URL('/stats', upstream.info.url))).json()) as { calls: number; inputs: number };
      return { engine: services.db.engine, documents, chunks, seconds, chunksPerSecond: chunks / seconds, embeddingCalls: stats.calls, embeddedTexts: stats.inputs };
    } finally {
      await services.close();
    }
  } finally {
    upstream.child.kill('SIGTERM');
    await scratch?.drop();
    rmSync(folder, { recursive: true, force: true });
  }
}
