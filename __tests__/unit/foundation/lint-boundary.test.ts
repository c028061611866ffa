import { beforeAll, describe, expect, it } from '@jest/globals'
import { join } from 'node:path'
import { ESLint } from 'eslint'

// The pure-core boundary of eslint.config.mjs, checked on fixture text linted as if it lived at
// a given path. Only the `no-restricted-*` rules run, and without type information: the project
// service refuses files that are not on disk, and these rules need no types. Everything else
// (which files the rules cover, what they ban) is the repository's own configuration.
const root = join(import.meta.dirname, '..', '..', '..')
const restrictedRules = [
  'no-restricted-imports',
  'no-restricted-globals',
  'no-restricted-properties',
  'no-restricted-syntax'
]
let eslint: ESLint

beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => restrictedRules.includes(ruleId)
  })
})

/** One statement per line; the 1-based lines `rule` reports at `filePath`, once per report. */
async function restrictedLines(
  statements: readonly string[],
  filePath: string,
  rules: readonly string[] = ['no-restricted-imports']
): Promise<number[]> {
  const code = statements.join('\n') + '\n'
  const [result] = await eslint.lintText(code, { filePath })
  const fatal = result!.messages.filter((m) => m.fatal)
  expect(fatal).toEqual([])
  return result!.messages
    .filter((m) => m.ruleId !== null && rules.includes(m.ruleId))
    .map((m) => m.line)
    .sort((a, b) => a - b)
}

const sideEffects = [
  "import { readFileSync } from 'node:fs'",
  "import { readFile } from 'fs/promises'",
  "import { execFile } from 'node:child_process'",
  "import os from 'os'",
  "import https from 'node:https'",
  "import { connect } from 'node:net'",
  "import process from 'node:process'",
  "import { Worker } from 'worker_threads'",
  "import * as core from '@actions/core'",
  "import { KubeConfig } from '@kubernetes/client-node'",
  "import { createNodeFiles } from '../adapters/files/node-files.js'",
  "import type { CommandRunner } from '../../adapters/command-runner.js'"
]

const pureComputations = [
  "import path from 'node:path'",
  "import { createHash } from 'node:crypto'",
  "import { createHmac } from 'crypto'",
  "import { gunzipSync } from 'node:zlib'",
  "import { isDeepStrictEqual } from 'node:util'",
  "import { isIP } from 'node:net'",
  "import { goQuote } from '../go/quote.js'"
]

const worldAccess = [
  'export const now = Date.now()',
  'export const today = new Date()',
  'export const tick = performance.now()',
  'setTimeout(() => undefined, 1)',
  'export const home = process.env.HOME',
  'export const cwd = process.cwd()',
  "import { randomBytes } from 'node:crypto'",
  "import { randomUUID } from 'crypto'",
  'export const dice = Math.random()',
  'export const id = crypto.randomUUID()'
]

const pureTime = [
  'export const epoch = new Date(0)',
  'export const day = new Date(Date.UTC(2024, 1, 0)).getUTCDate()'
]

const coreFolders = [
  'config',
  'plan',
  'render',
  'render/helmfile',
  'objects',
  'go',
  'state',
  'apply',
  'report',
  'engine',
  'action'
]

describe('the pure-core boundary (eslint.config.mjs)', () => {
  it.each(coreFolders)(
    'rejects every side-effect module and adapter import in src/%s',
    async (folder) => {
      const lines = await restrictedLines(sideEffects, `src/${folder}/__lint_fixture__.ts`)
      expect(lines).toEqual(sideEffects.map((_, i) => i + 1))
    },
    30_000
  )

  it.each(coreFolders)(
    'allows pure computations from node: modules in src/%s',
    async (folder) => {
      expect(await restrictedLines(pureComputations, `src/${folder}/__lint_fixture__.ts`)).toEqual(
        []
      )
    },
    30_000
  )

  it('accepts the same side-effect imports in src/adapters', async () => {
    expect(await restrictedLines(sideEffects, 'src/adapters/__lint_fixture__.ts')).toEqual([])
  })

  it.each(['state', 'apply', 'engine'])(
    'rejects the clock, randomness and the process global in src/%s',
    async (folder) => {
      const lines = await restrictedLines(
        worldAccess,
        `src/${folder}/__lint_fixture__.ts`,
        restrictedRules
      )
      expect(lines).toEqual(worldAccess.map((_, i) => i + 1))
    }
  )

  it('allows dates computed from given values in the core', async () => {
    expect(await restrictedLines(pureTime, 'src/go/__lint_fixture__.ts', restrictedRules)).toEqual(
      []
    )
  })

  it('accepts the clock, randomness and the process global in src/adapters', async () => {
    expect(
      await restrictedLines(worldAccess, 'src/adapters/__lint_fixture__.ts', restrictedRules)
    ).toEqual([])
  })

  it('says where the side effect belongs', async () => {
    const code = "import { readFile } from 'node:fs/promises'\n"
    const [result] = await eslint.lintText(code, { filePath: 'src/state/__lint_fixture__.ts' })
    expect(result!.messages.map((m) => m.message)).toEqual([
      expect.stringMatching(/take it through a port .*src\/adapters/)
    ])
  })
})

// Rooms that must not reach each other: the command line and the action drive one engine, and
// the Go compatibility layer sits below the config layer.
const separated = [
  {
    what: 'src/cli/** importing src/action/**',
    filePath: 'src/cli/__lint_fixture__.ts',
    violating: "import { runDiffFlow } from '../action/diff-flow.js'",
    compliant: "import { diffWithContent } from '../engine/content-diff.js'",
    message: /command line never imports the action .*engine step in src\/engine/
  },
  {
    what: 'src/cli.ts importing src/action/**',
    filePath: 'src/cli.ts',
    violating: "import type { BeforeSide } from './action/content-flow.js'",
    compliant: "import { renderAtCommit } from './engine/base-render.js'",
    message: /command line never imports the action/
  },
  {
    what: 'src/go/** importing src/config/**',
    filePath: 'src/go/__lint_fixture__.ts',
    violating: "import type { SourceIndex } from '../config/source-index.js'",
    compliant: "import { formatGoFloat } from './yaml-scalars.js'",
    message: /src\/go\/ never imports src\/config\/: declare the interface in src\/go\//
  },
  {
    what: 'src/go/template/** importing src/config/**',
    filePath: 'src/go/template/__lint_fixture__.ts',
    violating: "import { loadConfig } from '../../config/load.js'",
    compliant: "import { goQuote } from '../quote.js'",
    message: /src\/go\/ never imports src\/config\//
  }
]

describe('the separated rooms (eslint.config.mjs)', () => {
  it.each(separated)('rejects $what, saying where it belongs', async (rule) => {
    const [result] = await eslint.lintText(rule.violating + '\n', { filePath: rule.filePath })
    expect(result!.messages.map((m) => [m.ruleId, m.message])).toEqual([
      ['no-restricted-imports', expect.stringMatching(rule.message)]
    ])
  })

  it.each(separated)('accepts the compliant import beside $what', async (rule) => {
    expect(await restrictedLines([rule.compliant], rule.filePath)).toEqual([])
  })

  it('keeps the pure-core boundary in the folders with a rule of their own', async () => {
    for (const folder of ['cli', 'go']) {
      const lines = await restrictedLines(sideEffects, `src/${folder}/__lint_fixture__.ts`)
      expect(lines).toEqual(sideEffects.map((_, i) => i + 1))
    }
  })
})
