import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|css|svg|json)$/;

/** Writes a .br and a .gz beside each script and stylesheet once, at build time: the server sends them as they are (@fastify/static preCompressed). */
function precompress(): Plugin {
  return {
    name: 'junction-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle).filter((name) => COMPRESSIBLE.test(name))) {
        const path = join(options.dir ?? '', fileName);
        const content = readFileSync(path);
        writeFileSync(`${path}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }));
        writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}

// The console is served by Junction itself at `/`; its API is `/console/api` on the same origin.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), precompress()],
  resolve: {
    alias: {
      // Shapes shared with the server: the zod schemas of src/console/contract, never restated.
      '@contract': fileURLToPath(new URL('../src/console/contract', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: { proxy: { '/console/api': 'http://127.0.0.1:8080' } },
});
