import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by Junction itself at `/`; its API is `/console/api` on the same origin.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: {
      // Shapes shared with the server: the zod schemas of src/console/contract, never restated.
      '@contract': fileURLToPath(new URL('../src/console/contract', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1200,
  },
  server: { proxy: { '/console/api': 'http://127.0.0.1:8080' } },
});
