import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // CLI tests spawn node processes; two cores do not gain from more workers.
    maxWorkers: 2,
  },
})
