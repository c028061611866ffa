/**
 * Where the native programs' unpacking finds the zstd command (src/adapters/render/native-program.ts):
 * only in absolute directories of PATH, never through an empty or relative entry, which would
 * find it in the working directory (the checkout of a pull request).
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { commandOnPath } from '../../../src/adapters/render/native-program.js'

let dir: string
let cwd: string
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-command-on-path-'))
  for (const sub of ['plain', 'exec', 'later', 'rel', 'named-dir/zstd']) {
    mkdirSync(path.join(dir, sub), { recursive: true })
  }
  writeFileSync(path.join(dir, 'plain', 'zstd'), 'not executable')
  for (const sub of ['exec', 'later', 'rel']) {
    writeFileSync(path.join(dir, sub, 'zstd'), '#!/bin/sh\n')
    chmodSync(path.join(dir, sub, 'zstd'), 0o755)
  }
  writeFileSync(path.join(dir, 'zstd'), '#!/bin/sh\n', { mode: 0o755 })
  cwd = process.cwd()
  process.chdir(dir)
})
afterAll(() => {
  process.chdir(cwd)
  rmSync(dir, { recursive: true, force: true })
})

const on = (...entries: string[]): string => entries.join(path.delimiter)

it('takes the first absolute directory with an executable file of that name', () => {
  const found = commandOnPath(
    'zstd',
    on(path.join(dir, 'plain'), path.join(dir, 'exec'), path.join(dir, 'later'))
  )
  expect(found).toBe(path.join(dir, 'exec', 'zstd'))
  expect(commandOnPath('zstd', on(path.join(dir, 'named-dir'), path.join(dir, 'later')))).toBe(
    path.join(dir, 'later', 'zstd')
  )
})

it('skips empty and relative entries, which name the working directory', () => {
  expect(commandOnPath('zstd', on('', '.', 'rel', path.join(dir, 'plain')))).toBeUndefined()
  expect(commandOnPath('zstd', '')).toBeUndefined()
})
