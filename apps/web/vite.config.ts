import { defineConfig } from 'vite';

/**
 * Static files the API serves at `/` (apps/api/src/routes/web.ts): everything hashed under
 * `assets/` so the API can mark it immutable, and `index.html` the only entry, never cached.
 * No inline scripts or styles end up in the HTML: the page's CSP allows same-origin files only.
 */
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    // Keep every asset a file: an inlined `data:` URL would need a looser CSP.
    assetsInlineLimit: 0,
    target: ['chrome120', 'firefox120', 'safari17'],
    sourcemap: true,
  },
  server: {
    // `npm start` in another terminal; `vite` then serves the app with hot reload against it.
    proxy: { '/api': 'http://127.0.0.1:3000', '/app-config.json': 'http://127.0.0.1:3000' },
  },
});
