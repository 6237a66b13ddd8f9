/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';
import base from './jest.config.ts';

/**
 * `npm run test:scale`: Redis Cluster tests (test/scale, minutes each, not part of `npm test`) and
 * the job-state unit tests again, this time against a Redis Cluster (test/scale/global-setup.ts).
 */
const config: Config = {
  ...base,
  testMatch: ['<rootDir>/test/scale/**/*.test.ts', '<rootDir>/packages/job-state/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/scale/global-setup.ts',
  globalTeardown: '<rootDir>/test/scale/global-teardown.ts',
  // One file at a time: a cluster test runs a whole deployment of processes on two cores.
  maxWorkers: 1,
};

export default config;
