// `completion bash|zsh|fish|powershell`, run in the real shells: bash through its completion
// function (COMP_WORDS/COMP_CWORD, as bash calls it), fish through `complete -C` (fish's own
// completion of a command line), zsh through its function with compadd and compdef stood in
// by functions that print what they get (zsh's completion system needs a terminal). PowerShell
// is not installed here: its script is checked for the table it carries only. Shells not on
// PATH are skipped with the reason in the title. The expected candidates are the command table
// of src/cli.ts, so a new command shows up in them with no change to the scripts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { commands } from '../../../src/cli.js'
import { runCliInProcess as cli } from '../../support/cli.js'

let dir: string
const scripts = { bash: '', zsh: '', fish: '', powershell: '' }
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tazuna-completion-'))
  for (const shell of ['bash', 'zsh', 'fish', 'powershell'] as const) {
    const run = await cli(['completion', shell])
    if (run.code !== 0) throw new Error(`completion ${shell}: ${run.stderr}`)
    scripts[shell] = path.join(dir, shell)
    writeFileSync(scripts[shell], run.stdout)
  }
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const has = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0
const describeIn = (shell: string) => (has(shell) ? describe : describe.skip)
const skipped = (shell: string): string => (has(shell) ? '' : ` (SKIPPED: no ${shell} on PATH)`)

/** The first words of every command: what completes after the program's name. */
const firstWords = [...new Set(commands.map((c) => c.name.split(' ')[0] ?? ''))].sort()
const stateWords = commands
  .filter((c) => c.name.startsWith('state '))
  .map((c) => c.name.slice('state '.length))
  .sort()

/** The cases every shell answers: the words typed (the last one being completed), the candidates. */
const cases: [string, string[]][] = [
  ['', firstWords],
  ['st', ['state', 'status']],
  ['state ', stateWords],
  ['-f x.yaml state d', ['diff', 'drift']],
  ['state diff --con', ['--content']],
  ['apply --lock-timeout 5m --s', ['--sync']],
  ['completion ', ['bash', 'fish', 'powershell', 'zsh']],
  ['--vers', ['--version']],
  ['check --vers', []]
]

describeIn('bash')(`bash completion${skipped('bash')}`, () => {
  const complete = (line: string): string[] => {
    const words = ['tazuna-action', ...line.split(' ')]
    const script = `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tazuna_action; printf '%s\\n' "\${COMPREPLY[@]}"`
    return lines(execFileSync('bash', ['-c', script, 'bash', scripts.bash], { encoding: 'utf8' }))
  }
  it.each(cases)('completes `tazuna-action %s`', (line, expected) => {
    expect(complete(line)).toEqual(expected)
  })
  it('completes nothing of its own after a flag that takes a value (bash offers files)', () => {
    expect(complete('-f ')).toEqual([])
  })
})

describeIn('zsh')(`zsh completion${skipped('zsh')}`, () => {
  const complete = (line: string): string[] => {
    const words = ['tazuna-action', ...line.split(' ')]
    const script = [
      'compdef() { :; }',
      'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }',
      "_files() { print -r -- '(files)'; }",
      'source "$1"',
      `words=(${words.map((w) => `'${w}'`).join(' ')})`,
      `CURRENT=${words.length}`,
      '_tazuna_action'
    ].join('\n')
    return lines(execFileSync('zsh', ['-fc', script, 'zsh', scripts.zsh], { encoding: 'utf8' }))
  }
  it.each(cases)('completes `tazuna-action %s`', (line, expected) => {
    const typed = line.split(' ').at(-1) ?? ''
    // compadd gets every candidate; zsh itself keeps those that start with the typed word.
    expect(complete(line).filter((w) => w.startsWith(typed))).toEqual(expected)
  })
  it('offers files after a flag that takes a value', () => {
    expect(complete('-f ')).toEqual(['(files)'])
  })
})

describeIn('fish')(`fish completion${skipped('fish')}`, () => {
  const complete = (line: string): string[] =>
    lines(
      execFileSync(
        'fish',
        ['-c', 'source $argv[1]; complete -C "tazuna-action $argv[2]"', scripts.fish, line],
        { encoding: 'utf8' }
      )
    ).map((candidate) => candidate.split('\t')[0] ?? '')
  it.each(cases)('completes `tazuna-action %s`', (line, expected) => {
    expect(complete(line)).toEqual(expected)
  })
})

describe('powershell completion (not run: no pwsh here)', () => {
  it('carries every command path and its flags', async () => {
    const text = (await cli(['completion', 'powershell'])).stdout
    for (const command of commands) expect(text).toContain(`'${command.name}' = @(`)
    expect(text).toContain("'state' = @('diff', 'list', 'export', 'drift')")
    expect(text).toContain("Register-ArgumentCompleter -Native -CommandName 'tazuna-action'")
  })
})

it('refuses a shell it does not know, naming the ones it does', async () => {
  expect(await cli(['completion', 'tcsh'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'error: completion takes one shell: bash, zsh, fish, powershell (got "tcsh")\n'
  })
})

function lines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .sort()
}
