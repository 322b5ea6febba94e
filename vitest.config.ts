import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two cores do not gain from more workers.
    maxWorkers: 2,
    // Each file re-importing src (h3, graphql, grpc, soap…) cost more CPU than most of its tests:
    // files share a worker's modules instead. Tests keep no state between files: each one's
    // afterAll/afterEach runs cleanup(), and the code under test keeps its state per runtime.
    isolate: false,
    // The dashboard tests' Chromium: one per worker for the whole run, launched when a test first asks.
    globalSetup: ['test/dashboard/_chromium.ts'],
  },
})
