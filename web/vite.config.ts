// The browser app's build: web/ -> web/dist (served by the server at /, assets at /assets/).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { emojiCatalog } from '../src/emoji/catalog.ts';

/**
 * `virtual:emoji-catalog`: the server's own emoji list (src/emoji/catalog.ts) as a module,
 * which the app imports dynamically, so that it becomes a chunk of its own fetched after
 * the first paint.
 */
const emojiCatalogModule = () => ({
  name: 'parley-emoji-catalog',
  resolveId: (id: string) => (id === 'virtual:emoji-catalog' ? '\0virtual:emoji-catalog' : null),
  load: (id: string) => (id === '\0virtual:emoji-catalog' ? `export default ${JSON.stringify(emojiCatalog())};` : null),
});

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact({ devToolsInProd: false, prefreshEnabled: false }), emojiCatalogModule()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One bundle for the first paint (one request beats several); the emoji catalog is the one
    // chunk apart, imported when wanted.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  // The server's /json routes during `vite dev` (PARLEY_DEV_SERVER, default the server's port).
  server: { proxy: { '/json': process.env.PARLEY_DEV_SERVER ?? 'http://127.0.0.1:9991', '/accounts': process.env.PARLEY_DEV_SERVER ?? 'http://127.0.0.1:9991' } },
});
