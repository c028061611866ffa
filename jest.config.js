// Two projects: `unit` (pure core, no cluster) and `integration` (real kube-apiserver, real
// kustomize and helm, `node dist/index.js` end to end). scripts/test.sh builds the tools first.
const base = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  resolver: 'ts-jest-resolver',
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json']
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
  // A global option: jest ignores testTimeout inside a project. Cluster tests wait on a real
  // API server and real tools on a busy 2-core machine.
  testTimeout: 120000
}
