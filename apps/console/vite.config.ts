import { defineConfig } from 'vite';

// Preact through esbuild's automatic JSX runtime: no plugin needed. The gateway
// serves dist/ at `/` and dist/assets/ with a year-long cache (hashed names).
export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or styles anywhere: the Content-Security-Policy allows none.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { proxy: { '/api': 'http://localhost:8080', '/trace': 'http://localhost:8080' } },
});
