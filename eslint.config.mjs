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
  { name: 'node:child_process', message: 'Run programs through src/adapters/command-runner.ts.' },
  { name: 'child_process', message: 'Run programs through src/adapters/command-runner.ts.' },
  { name: '@kubernetes/client-node', message: 'Reach the cluster through src/adapters/**.' }
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
    ignores: ['src/main.ts', 'src/cli.ts', 'src/adapters/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: sideEffectModules }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the environment in inputs.ts or cli.ts.'
        },
        { object: 'process', property: 'exit', message: 'Set process.exitCode instead.' }
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
