// State snapshots on a hidden ref, with real git: a bare repository as origin, the merge job's
// clone that publishes, and a pull-request job's depth-1 clone that fetches.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { gitSnapshotRefs, SNAPSHOT_FILE } from '../../src/adapters/git-snapshot.js'
import { snapshotRefProblem } from '../../src/state/snapshot-ref.js'

const ref = 'refs/tazuna-state/tazuna.yaml/production'

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com'
    }
  }).trim()
}

/** origin (bare, two commits on main) and a full clone of it. */
function repositories() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'snapshot-ref-'))
  const origin = path.join(root, 'origin.git')
  const work = path.join(root, 'work')
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin)
  git(root, 'clone', '--quiet', origin, work)
  for (const n of ['1', '2']) {
    writeFileSync(path.join(work, 'tazuna.yaml'), `# ${n}\n`)
    git(work, 'add', 'tazuna.yaml')
    git(work, 'commit', '--quiet', '-m', n)
  }
  git(work, 'push', '--quiet', 'origin', 'main')
  const shallow = path.join(root, 'shallow')
  git(root, 'clone', '--quiet', '--depth=1', `file://${origin}`, shallow)
  return { origin, work, shallow }
}

describe('snapshots on a hidden git ref', () => {
  it('publishes from one clone and fetches from a depth-1 clone of the same origin', async () => {
    const { origin, work, shallow } = repositories()
    const main = git(origin, 'rev-parse', 'main')
    const commit = await gitSnapshotRefs(work).publish(ref, '{"a":1}\n', 'State snapshot')
    expect(git(origin, 'rev-parse', ref)).toBe(commit)
    expect(git(origin, 'show', `${ref}:${SNAPSHOT_FILE}`)).toBe('{"a":1}')
    expect(await gitSnapshotRefs(shallow).fetch(ref)).toEqual({ commit, text: '{"a":1}\n' })
    // Nothing else moved: main, the clone's branch, index and work tree.
    expect(git(origin, 'rev-parse', 'main')).toBe(main)
    expect(git(work, 'rev-parse', 'HEAD')).toBe(main)
    expect(git(work, 'status', '--porcelain')).toBe('')
    expect(git(shallow, 'rev-list', '--count', 'HEAD')).toBe('1')
  })

  it('replaces the snapshot on the next publish, with a commit of its own without parent', async () => {
    const { work, shallow } = repositories()
    const refs = gitSnapshotRefs(work)
    await refs.publish(ref, 'one\n', 'first')
    const second = await refs.publish(ref, 'two\n', 'second')
    expect(git(work, 'rev-list', '--count', second)).toBe('1')
    expect(await gitSnapshotRefs(shallow).fetch(ref)).toEqual({ commit: second, text: 'two\n' })
  })

  it('fetches nothing when origin has no such ref', async () => {
    const { shallow } = repositories()
    expect(await gitSnapshotRefs(shallow).fetch(ref)).toBeUndefined()
  })

  it('fails naming the git command when the push is refused', async () => {
    const { origin, work } = repositories()
    git(origin, 'config', 'receive.denyCurrentBranch', 'refuse')
    writeFileSync(
      path.join(origin, 'hooks', 'pre-receive'),
      '#!/bin/sh\necho "refused by policy" >&2\nexit 1\n',
      { mode: 0o755 }
    )
    await expect(gitSnapshotRefs(work).publish(ref, 'x\n', 'm')).rejects.toThrow(
      /^git push failed \(exit 1\): (.|\n)*refused by policy/
    )
  })

  it('refuses branches, tags and names git refuses, before running git', async () => {
    const { work } = repositories()
    await expect(gitSnapshotRefs(work).publish('refs/heads/main', 'x', 'm')).rejects.toThrow(
      'snapshot ref "refs/heads/main" must not be a branch, tag, remote or pull request ref'
    )
    expect(git(work, 'show', 'origin/main:tazuna.yaml')).toBe('# 2')
  })
})

describe('snapshotRefProblem', () => {
  it.each([
    [ref, undefined],
    ['refs/tazuna-state/deploy/tazuna.yaml/', 'is not a valid git ref name'],
    ['tazuna-state/x', 'must be a full ref name starting with refs/'],
    [
      'refs/tags/v1',
      'must not be a branch, tag, remote or pull request ref (it is force-replaced)'
    ],
    ['refs/tazuna-state/a..b', 'is not a valid git ref name'],
    ['refs/tazuna-state/a b', 'is not a valid git ref name'],
    ['refs/tazuna-state/x.lock', 'is not a valid git ref name']
  ])('%s: %s', (name, problem) => {
    expect(snapshotRefProblem(name)).toBe(problem)
  })
})
