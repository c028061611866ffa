import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commitAll, commitNext, git } from '../../support/git-repo.js'

// scripts/release.sh in dry-run mode, in a real repository with a real remote (a bare
// repository): what it would run, and what it refuses. Nothing here talks to GitHub: a dry run
// prints the gh commands instead of running them.
const root = join(import.meta.dirname, '..', '..', '..')

interface Released {
  status: number | null
  stdout: string
  stderr: string
}

let repo: string
let origin: string
let first: string
let second: string

/** A project at `version`: package.json, a CHANGELOG.md section for it, a dist/ and the script. */
function writeProject(
  dir: string,
  version: string,
  changelog = `## [${version}] - 2026-11-27\n`
): void {
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  mkdirSync(join(dir, 'dist'), { recursive: true })
  copyFileSync(join(root, 'scripts', 'release.sh'), join(dir, 'scripts', 'release.sh'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'action', version }, null, 2))
  writeFileSync(join(dir, 'CHANGELOG.md'), `# Changelog\n\n## [Unreleased]\n\n${changelog}`)
  writeFileSync(join(dir, 'dist', 'index.js'), `// the bundle of ${version}\n`)
}

/** An annotated tag, as a maintainer makes one. */
function tag(name: string, commit: string): void {
  const identity = [
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@example.com',
    '-c',
    'tag.gpgSign=false'
  ]
  git(repo, ...identity, 'tag', '-a', name, '-m', name, commit)
}

function release(...args: string[]): Released {
  const env = { ...process.env }
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key]
  const result = spawnSync('bash', [join(repo, 'scripts', 'release.sh'), ...args], {
    cwd: repo,
    env,
    encoding: 'utf8'
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The lines a dry run prints for releasing `version` at `commit`. */
function checks(commit: string): string[] {
  return ['ci.yml', 'check-dist.yml'].map(
    (workflow) =>
      `dry-run: gh api -X GET repos/{owner}/{repo}/actions/workflows/${workflow}/runs -f head_sha=${commit} -f event=push -f status=success --jq .total_count`
  )
}

function remoteTags(): string {
  return git(origin, 'for-each-ref', '--format=%(refname)', 'refs/tags')
}

// One template (two releases, both tags pushed), copied for each test: git's remote is the
// relative path ../origin.git, so a copy is a repository with a remote of its own.
let template: string

beforeAll(() => {
  template = mkdtempSync(join(tmpdir(), 'tazuna-release-'))
  origin = join(template, 'origin.git')
  repo = join(template, 'repo')
  git(template, 'init', '-q', '--bare', origin)
  writeProject(repo, '1.1.0')
  first = commitAll(repo, 'v1.1.0')
  writeProject(repo, '1.2.0', '## [1.2.0] - 2026-11-27\n\n## [1.1.0] - 2026-11-20\n')
  second = commitNext(repo, 'v1.2.0')
  tag('v1.1.0', first)
  tag('v1.2.0', second)
  git(repo, 'remote', 'add', 'origin', '../origin.git')
  git(repo, 'push', '-q', 'origin', 'main', 'v1.1.0', 'v1.2.0')
})

beforeEach(() => {
  const work = mkdtempSync(join(tmpdir(), 'tazuna-release-'))
  cpSync(template, work, { recursive: true })
  origin = join(work, 'origin.git')
  repo = join(work, 'repo')
})

afterAll(() => rmSync(template, { recursive: true, force: true }))

describe('a dry run of scripts/release.sh', () => {
  it('prints the workflow checks, the move of the major tag and the release, and runs none', () => {
    const result = release('--dry-run', 'v1.2.0')
    expect(result.stderr).toContain('dry run: the commands above were printed, not run')
    expect(result.stdout.split('\n')).toEqual([
      ...checks(second),
      `dry-run: git push --force origin ${second}:refs/tags/v1`,
      'dry-run: gh release create v1.2.0 --verify-tag --generate-notes',
      ''
    ])
    expect(result.status).toBe(0)
    expect(remoteTags()).not.toContain('refs/tags/v1\n')
  })

  it('leaves the major tag alone when a newer release of that major exists', () => {
    const result = release('--dry-run', '--commit', first, 'v1.1.0')
    expect(result.stdout.split('\n')).toEqual([
      ...checks(first),
      'dry-run: gh release create v1.1.0 --verify-tag --generate-notes',
      ''
    ])
    expect(result.stderr).toContain('v1.1.0 is not the newest v1 release (v1.2.0 is): v1 stays')
    expect(result.status).toBe(0)
  })
})

describe('scripts/release.sh refuses', () => {
  it.each([['v1.2'], ['1.2.0'], ['v01.2.0'], ['v1.2.0-rc.1'], ['v1.2.0 ']])(
    'a tag that is not vMAJOR.MINOR.PATCH: %j',
    (name) => {
      const result = release('--dry-run', name)
      expect(result.stderr).toContain('is not a release tag vMAJOR.MINOR.PATCH')
      expect(result.stdout).toBe('')
      expect(result.status).toBe(2)
    }
  )

  it.each([[['--commit']], [['--bogus', 'v1.2.0']], [['v1.2.0', 'v1.1.0']], [[]]])(
    'arguments it cannot use: %j',
    (args) => {
      const result = release('--dry-run', ...args)
      expect(result.stderr).toContain('usage: release.sh')
      expect(result.stdout).toBe('')
      expect(result.status).toBe(2)
    }
  )

  it('a tag that points at another commit than the one released', () => {
    const result = release('--dry-run', 'v1.1.0')
    expect(result.stderr).toContain(
      `refused: tag v1.1.0 points at ${first}, not at HEAD (${second})`
    )
    expect(result.stdout).toBe('')
    expect(result.status).toBe(1)
  })

  it('a tag that does not exist', () => {
    const result = release('--dry-run', 'v1.2.1')
    expect(result.stderr).toContain('refused: there is no tag v1.2.1 here')
    expect(result.status).toBe(1)
  })

  it('a tag that was not pushed to the remote, which a dry run only notes', () => {
    writeProject(repo, '1.3.0')
    const third = commitNext(repo, 'v1.3.0')
    tag('v1.3.0', third)
    const real = release('v1.3.0')
    expect(real.stderr).toContain("refused: tag v1.3.0 is not on remote 'origin': push it first")
    expect(real.stdout).toBe('')
    expect(real.status).toBe(1)
    const dry = release('--dry-run', 'v1.3.0')
    expect(dry.stderr).toContain(
      "tag v1.3.0 is not on remote 'origin' yet; a real run would refuse"
    )
    expect(dry.stdout).toContain(`dry-run: git push --force origin ${third}:refs/tags/v1\n`)
    expect(dry.status).toBe(0)
  })

  it('a tag that points elsewhere on the remote', () => {
    writeProject(repo, '1.3.0')
    const third = commitNext(repo, 'v1.3.0')
    tag('v1.3.0', third)
    git(repo, 'push', '-q', 'origin', `${second}:refs/tags/v1.3.0`)
    const result = release('--dry-run', 'v1.3.0')
    expect(result.stderr).toContain(`refused: tag v1.3.0 on remote 'origin' points at ${second}`)
    expect(result.status).toBe(1)
  })

  it('a tag whose version is not package.json’s', () => {
    tag('v1.2.1', second)
    git(repo, 'push', '-q', 'origin', 'v1.2.1')
    const result = release('--dry-run', 'v1.2.1')
    expect(result.stderr).toContain(`refused: package.json at ${second} has version '1.2.0'`)
    expect(result.status).toBe(1)
  })

  it('a version without a CHANGELOG.md section', () => {
    writeProject(repo, '1.3.0', '## [1.2.0] - 2026-11-27\n')
    tag('v1.3.0', commitNext(repo, 'v1.3.0 without its changelog'))
    git(repo, 'push', '-q', 'origin', 'v1.3.0')
    const result = release('--dry-run', 'v1.3.0')
    expect(result.stderr).toContain("has no '## [1.3.0]' section")
    expect(result.status).toBe(1)
  })

  it.each([
    ['a changed file', 'index.js'],
    ['a new file', 'chunk.js']
  ])('a dist/ with uncommitted changes: %s', (_, file) => {
    appendFileSync(join(repo, 'dist', file), '// rebuilt\n')
    const result = release('--dry-run', 'v1.2.0')
    expect(result.stderr).toContain('refused: dist/ has uncommitted changes')
    expect(result.stderr).toContain(`dist/${file}`)
    expect(result.stdout).toBe('')
    expect(result.status).toBe(1)
  })
})
