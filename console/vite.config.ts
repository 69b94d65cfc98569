/**
 * The console's build: one static bundle under dist/, served by the API at /console (base below).
 * `@coupons/client` is the typed client's source (../client/src), compiled into the bundle: the
 * console calls the admin API only through it. Nothing is fetched from a CDN at run time.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: { '@coupons/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)) },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, reportCompressedSize: true },
});
