// The browser app's build: web/ -> web/dist (served by the server at /, assets at /assets/).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact({ devToolsInProd: false, prefreshEnabled: false })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One bundle: the whole app is needed for the first paint, and one request beats several.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  // The server's /json routes during `vite dev` (PARLEY_DEV_SERVER, default the server's port).
  server: { proxy: { '/json': process.env.PARLEY_DEV_SERVER ?? 'http://127.0.0.1:9991', '/accounts': process.env.PARLEY_DEV_SERVER ?? 'http://127.0.0.1:9991' } },
});
