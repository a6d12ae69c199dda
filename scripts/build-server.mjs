// Compiles the server (src/main.ts and what it imports) into build/ with esbuild: one
// module plus a chunk per lazily imported part, instead of ~240 TypeScript files run
// through tsx's loader thread at every start. The packages loaded at every start are
// bundled in too: resolving and compiling some 900 files of node_modules one by one was
// about a third of a start. Output files sit directly in build/, one level below the root
// like src/, which src/project-root.ts relies on.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Packages that stay imports of node_modules, each for a reason:
const EXTERNAL = [
  // find files beside their own modules at run time (WASM, data bundles, worker scripts, UI assets)
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  'pino',
  'pino-pretty',
  'thread-stream',
  'swagger-ui-dist',
  'tsx',
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

const root = new URL('..', import.meta.url);
const outdir = new URL('build/', root).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root.pathname,
  entryPoints: ['src/main.ts'],
  outdir,
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
  logLevel: 'warning',
});
