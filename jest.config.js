// Two projects: `unit` (pure core, no cluster) and `integration` (real kube-apiserver, real
// kustomize and helm, `node dist/index.js` end to end). scripts/test.sh builds the tools first.
const base = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  resolver: 'ts-jest-resolver',
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // After every test, command line runs it left in flight (a timeout) are cancelled and
  // awaited, so that no test's work goes on into the next one.
  setupFilesAfterEnv: ['<rootDir>/__tests__/support/end-runs-after-each.ts']
}

export default {
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/__tests__/unit/**/*.test.ts'],
      globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
      globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts'
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/__tests__/integration/**/*.test.ts',
        '<rootDir>/__tests__/e2e/**/*.test.ts'
      ],
      globalSetup: '<rootDir>/__tests__/cluster/global-setup.ts',
      globalTeardown: '<rootDir>/__tests__/cluster/global-teardown.ts'
    }
  ],
  // The one timeout policy. Jest 30 reads testTimeout only from the global config
  // (jest-circus takes globalConfig.testTimeout; a project's own value is ignored), so it fits
  // the slowest layer: an e2e test runs `node dist/index.js` several times, each rendering with
  // kustomize and talking to a real API server, on a busy 2-core machine. Hooks that build
  // something (the e2e bundle, the Go template engine) pass their own, longer timeout.
  testTimeout: 180_000
}
