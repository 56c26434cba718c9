/**
 * Builds the dashboard into ui/dist, which the hub serves at /ui/ (src/dashboard/routes.ts).
 * `npm run build` runs it (and so does `npm install`, through `prepare`). For work on the page,
 * `npm run dev:ui` serves it with hot reload and passes /v1 to a hub on 127.0.0.1:8080.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No data: URLs and no inline code: the page runs under a same-origin-only CSP.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: {
    fs: { allow: ['..'] },
    proxy: { '/v1': 'http://127.0.0.1:8080' },
  },
});
