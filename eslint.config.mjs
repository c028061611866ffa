import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import jest from 'eslint-plugin-jest'

// Side effects live only in the entry points and src/adapters (house style): the pure core
// must not reach the toolkit, child processes or the cluster client directly.
const sideEffectModules = [
  {
    name: '@actions/core',
    message: 'Only main.ts, cli.ts and src/adapters/** may use @actions/*.'
  },
  {
    name: '@actions/github',
    message: 'Only main.ts, cli.ts and src/adapters/** may use @actions/*.'
  },
  {
    name: '@actions/exec',
    message: 'Only main.ts, cli.ts and src/adapters/** may use @actions/*.'
  },
  {
    name: 'node:child_process',
    message: 'Run programs through the CommandRunner port (src/render/ports.ts).'
  },
  {
    name: 'child_process',
    message: 'Run programs through the CommandRunner port (src/render/ports.ts).'
  },
  { name: '@kubernetes/client-node', message: 'Reach the cluster through src/adapters/**.' }
]

// The core (everything in src/ but the entry points and src/adapters) is pure: files,
// processes, the network, the clock and the environment come in through ports, whose node
// implementations live in src/adapters/ and are wired in src/adapters/engine-ports.ts, main.ts
// or cli.ts. Pure computations stay allowed: node:path, node:crypto (hashing), node:zlib,
// node:util, node:url, and node:net's address checks.
const portMessage = (what, port) =>
  `${what} is a side effect: take it through a port (${port}) and implement it in src/adapters/.`
const nodeSideEffects = [
  ['fs', 'File access', 'ConfigFiles in src/config/files.ts, BuildFiles in src/render/ports.ts'],
  ['fs/promises', 'File access', 'ConfigFiles, BuildFiles'],
  ['os', 'The host (temp dir, home, hostname)', 'e.g. BuildFiles.makeTempDir'],
  ['http', 'Network access', 'e.g. Cluster in src/apply/ports.ts'],
  ['https', 'Network access', 'e.g. Cluster in src/apply/ports.ts'],
  ['http2', 'Network access', 'e.g. Cluster in src/apply/ports.ts'],
  ['tls', 'Network access', 'e.g. Cluster in src/apply/ports.ts'],
  ['dns', 'Network access', 'a port of its consumer'],
  ['dgram', 'Network access', 'a port of its consumer'],
  ['worker_threads', 'Threads', 'a port of its consumer'],
  ['cluster', 'Processes', 'a port of its consumer'],
  ['process', 'The process (environment, argv, exit)', 'EnginePorts.env or the entry points'],
  ['readline', 'Terminal input', 'a port of its consumer']
].flatMap(([module, what, port]) =>
  [module, `node:${module}`].map((name) => ({ name, message: portMessage(what, port) }))
)
// node:net: only the pure address checks; connecting is a side effect.
const netConnect = ['net', 'node:net'].map((name) => ({
  name,
  allowImportNames: ['isIP', 'isIPv4', 'isIPv6'],
  message: portMessage('Network access', 'e.g. Cluster in src/apply/ports.ts')
}))
// node:crypto: hashing is pure; random bytes are the world's (the run's Secret fingerprint key
// comes from src/adapters/fingerprint-key.ts through the entry points).
const randomMessage =
  'Randomness is a side effect: make it in src/adapters/ (e.g. src/adapters/fingerprint-key.ts) ' +
  'and pass the value in.'
const cryptoRandomness = ['crypto', 'node:crypto'].map((name) => ({
  name,
  importNames: [
    'randomBytes',
    'randomFill',
    'randomFillSync',
    'randomInt',
    'randomUUID',
    'getRandomValues',
    'webcrypto',
    'generateKey',
    'generateKeySync',
    'generateKeyPair',
    'generateKeyPairSync',
    'generatePrime',
    'generatePrimeSync'
  ],
  message: randomMessage
}))
const clockMessage =
  'The clock is a side effect: take it through the Clock port (src/apply/ports.ts; ' +
  'src/adapters/clock.ts implements it).'
const adapterImports = {
  regex: '(^|/)adapters(/|$)',
  message:
    'The core never imports src/adapters: declare the port next to its consumer (e.g. ' +
    'src/render/ports.ts) and wire the adapter in src/adapters/engine-ports.ts, main.ts or cli.ts.'
}
// Rooms that must not reach each other, beyond the pure-core boundary (docs/ARCHITECTURE.md):
// the command line and the action are two drivers of one engine, so what both need is an engine
// step; the Go compatibility layer is below the config layer and reports through interfaces of
// its own.
const actionImports = {
  regex: '(^|/)action(/|$)',
  message:
    'The command line never imports the action (src/action/): what both drivers need is an ' +
    'engine step in src/engine/.'
}
const configImports = {
  regex: '(^|/)config(/|$)',
  message:
    'src/go/ never imports src/config/: declare the interface in src/go/ (e.g. SourceRecorder in ' +
    'src/go/json.ts) and let src/config/ implement it.'
}
const coreImports = (...patterns) => [
  'error',
  {
    paths: [...sideEffectModules, ...nodeSideEffects, ...netConnect, ...cryptoRandomness],
    patterns: [adapterImports, ...patterns]
  }
]

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ]
    }
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Set process.exitCode instead.' }
      ]
    }
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts', 'src/cli.ts', 'src/index.ts', 'src/adapters/**'],
    rules: {
      'no-restricted-imports': coreImports(),
      // The process global covers process.env, argv, cwd() and exit() at once.
      'no-restricted-globals': [
        'error',
        {
          name: 'process',
          message:
            'The process (environment, argv, cwd, exit) belongs to main.ts and cli.ts: take what ' +
            'you need as a port (e.g. EnginePorts.env); set process.exitCode there, never exit.'
        },
        ...['setTimeout', 'setInterval', 'setImmediate'].map((name) => ({
          name,
          message: clockMessage
        })),
        { name: 'crypto', message: randomMessage }
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: clockMessage },
        { object: 'performance', property: 'now', message: clockMessage },
        { object: 'Math', property: 'random', message: randomMessage }
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: clockMessage }
      ]
    }
  },
  // A later block's no-restricted-imports replaces the one above for its files, so each repeats
  // the core's list and adds its own.
  { files: ['src/cli/**/*.ts'], rules: { 'no-restricted-imports': coreImports(actionImports) } },
  { files: ['src/go/**/*.ts'], rules: { 'no-restricted-imports': coreImports(configImports) } },
  {
    files: ['src/cli.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [actionImports] }] }
  },
  // Files Node runs itself (`npm run demo`, scripts/cluster.sh, jest's global setup) go
  // through Node's type stripping, which only erases types: syntax that needs a compiler
  // (parameter properties, enums, namespaces) fails there although ts-jest accepts it.
  {
    files: ['__tests__/github-emulator/**/*.ts', '__tests__/cluster/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/parameter-properties': ['error', { prefer: 'class-property' }],
      'no-restricted-syntax': [
        'error',
        ...['TSEnumDeclaration', 'TSModuleDeclaration[declare!=true]'].map((selector) => ({
          selector,
          message: 'Node runs this file by type stripping, which cannot run this syntax.'
        }))
      ]
    }
  },
  {
    files: ['__tests__/**/*.ts'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off'
    }
  }
)
