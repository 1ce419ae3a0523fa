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
  verbose: true,
};
