import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Files one after the other and no results cache: the same order on every run.
  cacheDir: '.vite-cache',
  test: {
    fileParallelism: false,
  },
});
