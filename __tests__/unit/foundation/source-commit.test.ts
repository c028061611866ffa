// scripts/source-commit.mjs, the stamp of dist/build-info.json, on a throwaway git repository:
// it names the commit that last changed a bundle input and that commit's date, so a rebuild at
// a later commit (the one that commits dist/, a docs change) stamps the same bytes and
// scripts/check-dist.sh stays byte-exact; uncommitted sources stamp Tazuna's `none`/`unknown`.
import { afterEach, beforeEach, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..', '..')
let repo: string

const git = (...args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com'
    }
  }).trim()

/** Commits everything with the given committer date (seconds since the epoch, UTC). */
function commitAll(message: string, seconds: number): string {
  git('add', '-A')
  execFileSync('git', ['-C', repo, 'commit', '-q', '-m', message], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_COMMITTER_DATE: `${seconds} +0900`
    }
  })
  return git('rev-parse', 'HEAD')
}

function stamp(): unknown {
  return JSON.parse(
    execFileSync('node', [join(repo, 'scripts', 'source-commit.mjs'), repo], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    })
  )
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'tazuna-source-commit-'))
  git('init', '-q')
  mkdirSync(join(repo, 'scripts'))
  mkdirSync(join(repo, 'src'))
  for (const script of ['source-commit.mjs', 'bundle-inputs.mjs']) {
    cpSync(join(root, 'scripts', script), join(repo, 'scripts', script))
  }
  writeFileSync(join(repo, 'package.json'), '{}\n')
  writeFileSync(join(repo, 'src', 'index.ts'), 'export {}\n')
})

afterEach(() => rmSync(repo, { recursive: true, force: true }))

it('names the commit that last changed the sources, and its date in UTC', () => {
  const sources = commitAll('sources', 1_764_624_000)
  expect(stamp()).toEqual({ commit: sources, date: '2025-12-01T21:20:00Z' })
})

it('stamps the same at a later commit that changes no source (dist/, docs)', () => {
  const sources = commitAll('sources', 1_764_624_000)
  mkdirSync(join(repo, 'dist'))
  writeFileSync(join(repo, 'dist', 'index.js'), '//\n')
  writeFileSync(join(repo, 'README.md'), 'docs\n')
  commitAll('dist and docs', 1_764_710_400)
  expect(stamp()).toEqual({ commit: sources, date: '2025-12-01T21:20:00Z' })
})

it('follows a later change to any bundle input', () => {
  commitAll('sources', 1_764_624_000)
  writeFileSync(join(repo, 'src', 'index.ts'), 'export const x = 1\n')
  const change = commitAll('change', 1_764_710_400)
  expect(stamp()).toEqual({ commit: change, date: '2025-12-02T21:20:00Z' })
})

it.each([
  ['an edited source', 'src/index.ts'],
  ['a new source not added yet', 'src/new.ts']
])('stamps none and unknown with %s (the commit does not exist yet)', (_, file) => {
  commitAll('sources', 1_764_624_000)
  writeFileSync(join(repo, file), 'export const y = 2\n')
  expect(stamp()).toEqual({ commit: 'none', date: 'unknown' })
})

it('stamps none and unknown outside a commit', () => {
  expect(stamp()).toEqual({ commit: 'none', date: 'unknown' })
})
