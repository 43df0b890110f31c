import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { SOURCE_ALIASES } from './aliases.config';

const alias = SOURCE_ALIASES;

export default defineConfig({
  main: {
    resolve: { alias },
    build: {
      outDir: 'out/main',
      // The trace worker, the audit worker and the demo process are entries of their own beside index.js (src-main/entries.ts finds them by these names).
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          'trace-worker': resolve(__dirname, 'src-main/trace/worker.ts'),
          'a11y-worker': resolve(__dirname, 'src-main/a11y/worker.ts'),
          'demo-process': resolve(__dirname, 'src-demo/process.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    resolve: { alias },
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
