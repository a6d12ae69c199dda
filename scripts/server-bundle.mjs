// esbuild's settings for the compiled server, shared by `npm run build:server` (src/main.ts
// into build/) and the benchmarks (bench/gateway-server.ts into bench-build/), so that what
// is measured is compiled as what `npm start` runs. The packages loaded at every start are
// bundled in: resolving and compiling some 900 files of node_modules one by one was about
// a third of a start.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Packages that stay imports of node_modules, each for a reason:
const EXTERNAL = [
  // find files beside their own modules at run time (WASM, data bundles, worker scripts, UI
  // assets, esbuild's platform binary: it compiles TypeScript tool files)
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  'pino',
  'pino-pretty',
  'thread-stream',
  'swagger-ui-dist',
  'esbuild',
  // one instance shared with tool files, which import zod themselves
  'zod',
  // loaded only when first used (src/agents/agent-runtime-loader.ts, tracing, tokenizer,
  // parsers, REDIS_URL): bundling would not speed up a start, and the lazy-loading test
  // sees them by their node_modules paths
  '@langchain/*',
  'langsmith',
  '@modelcontextprotocol/*',
  '@opentelemetry/*',
  'js-tiktoken',
  'html-to-text',
  'mathjs',
  'unpdf',
  'ioredis',
  // optional native add-ons of pg and ws, absent unless installed
  'pg-native',
  'bufferutil',
  'utf-8-validate',
];

const root = new URL('..', import.meta.url).pathname;

/**
 * Compiles `entryPoints` (paths from the root) into `outdir`, a folder directly below the
 * root like src/ (src/core/project-root.ts relies on that): one module per entry point plus a
 * chunk per lazily imported part.
 */
export async function bundleServer({ entryPoints, outdir }) {
  const target = `${root}${outdir}/`;
  rmSync(target, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    // The embedded database's thread and the document extraction thread (src/store/pglite-worker-database.ts
    // and src/knowledge/document-extractor.ts start them from beside the chunks).
    entryPoints: [...entryPoints, { in: 'src/store/pglite-worker.ts', out: 'pglite-worker' }, { in: 'src/knowledge/extraction-worker.ts', out: 'extraction-worker' }],
    outdir: target,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
    banner: { js: "import { createRequire as createRequireForBundledPackages } from 'node:module'; const require = createRequireForBundledPackages(import.meta.url);" },
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    // Without comments and indentation the compiled server is a third smaller: V8 keeps each
    // module's source in memory (as two-byte text when a single comment holds a character
    // beyond Latin-1: 6.4 MB for the main chunk) and parses less at every start. Names stay,
    // so stack traces still name their functions; `node --enable-source-maps` maps their
    // positions back to src/ through the .map beside each chunk.
    minifyWhitespace: true,
    logLevel: 'warning',
  });
}
