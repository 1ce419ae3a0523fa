/**
 * Jest runs TypeScript as native ESM through ts-jest (transpile only: `npm run typecheck`
 * does the type checking once for the whole tree, so jest does not repeat it per file).
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/examples/**/*.spec.ts'],
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
  testTimeout: 30_000,
  maxWorkers: 2,
  // A worker that ran the browser specs ends with ~300 MB of heap (each spec loads
  // playwright-core into its own module registry, and playwright's process 'exit' hooks keep
  // them), which takes ~0.5 s of a loaded core to tear down after its last file: more than
  // jest's default 500 ms, so it was killed and reported as leaking. A handle left open still
  // shows as a forced exit, after 3 s.
  workerGracefulExitTimeout: 3000,
  verbose: true,
};
