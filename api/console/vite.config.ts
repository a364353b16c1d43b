import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web console: a Preact SPA served by the api under `/console/` (api/src/plugins/console-static.ts).
 * `npm run build:console` writes it to `api/console/dist/` (git-ignored); `CONSOLE_OUT_DIR` lets the
 * start and test builds write elsewhere first and swap the folder in whole.
 */
export default defineConfig({
  root,
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } })],
  publicDir: false,
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    // A strict CSP forbids inline scripts: no inlined module-preload polyfill, no data: scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npm run console:dev`: the api (npm start) answers /console/api and /v1.
    proxy: {
      '/console/api': 'http://127.0.0.1:8080',
      '/v1': 'http://127.0.0.1:8080',
    },
  },
});
