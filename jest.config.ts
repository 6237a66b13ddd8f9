/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// ESM throughout (see docs/architecture.md): swc strips types and keeps `import`/`import()`,
// Jest runs the modules natively with --experimental-vm-modules (set by the npm scripts).
const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleNameMapper: {
    // Workspace packages resolve to their sources so tests never run stale builds.
    '^@readpack/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    // Subpath exports (e.g. @readpack/ocr/version: a constant without the library behind it).
    '^@readpack/([a-z-]+)/([a-z-]+)$': '<rootDir>/packages/$1/src/$2.ts',
    // NodeNext requires `.js` in relative imports; the files on disk are `.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/{packages,apps}/*/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  // test/scale (root, minutes each) runs in `npm run test:scale` (below), not in `npm test`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/scale/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30_000,
  // Two cores: two test files at a time; each test owns its own Redis namespace.
  maxWorkers: 2,
};

/**
 * `npm run test:scale` (READPACK_JEST_SUITE=scale): the Redis Cluster tests of test/scale, minutes
 * each, and the job-state unit tests again, against a throwaway Redis Cluster this time
 * (test/scale/global-setup.ts). One file at a time: a cluster test runs a deployment of processes.
 */
const scale: Config = {
  ...config,
  testMatch: ['<rootDir>/test/scale/**/*.test.ts', '<rootDir>/packages/job-state/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/scale/global-setup.ts',
  globalTeardown: '<rootDir>/test/scale/global-teardown.ts',
  maxWorkers: 1,
};

export default process.env.READPACK_JEST_SUITE === 'scale' ? scale : config;
