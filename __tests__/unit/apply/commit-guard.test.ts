import { describe, expect, it } from '@jest/globals'
import { staleCommitProblem, type Ancestry } from '../../../src/apply/commit-guard.js'

/** Ancestry from a fixed table `recorded>current` → answer; anything else is an error. */
function ancestry(table: Record<string, Ancestry>) {
  const asked: string[] = []
  return {
    asked,
    relate(recorded: string, current: string) {
      asked.push(`${recorded}>${current}`)
      const answer = table[`${recorded}>${current}`]
      if (answer === undefined) throw new Error(`unexpected question ${recorded}>${current}`)
      return Promise.resolve(
        answer === 'unknown' ? { ancestry: answer, reason: 'shallow clone' } : { ancestry: answer }
      )
    }
  }
}

describe('the stale-commit guard', () => {
  it('lets a commit through whose recorded commits are itself, ancestors or none', async () => {
    const a = ancestry({ 'aaa>ccc': 'ancestor' })
    const recorded = new Map([
      ['web', 'aaa'],
      ['db', 'ccc'],
      ['new', '']
    ])
    expect(await staleCommitProblem({ current: 'ccc', recorded }, a)).toBeUndefined()
    expect(a.asked).toEqual(['aaa>ccc'])
  })

  it('refuses an older commit, naming the manifests, both commits and the override', async () => {
    const recorded = new Map([
      ['web', 'bbb'],
      ['db', 'bbb']
    ])
    const problem = await staleCommitProblem(
      { current: 'aaa', recorded },
      ancestry({ 'bbb>aaa': 'not-ancestor' })
    )
    expect(problem).toBe(
      'refusing to apply commit aaa: State of manifests "db", "web" records commit bbb, which is ' +
        'not an ancestor of it, so applying would roll back what bbb deployed (a re-run of an ' +
        "older workflow, or runs finishing out of order). Run the newest commit's workflow " +
        'instead. To apply it anyway, set input allow-older-commit: true (command line: ' +
        '--allow-older-commit).'
    )
  })

  it('refuses when ancestry cannot be told, saying why and how to fix it', async () => {
    const problem = await staleCommitProblem(
      { current: 'ccc', recorded: new Map([['web', 'bbb']]) },
      ancestry({ 'bbb>ccc': 'unknown' })
    )
    expect(problem).toContain('State of manifest "web" records commit bbb, and whether it is')
    expect(problem).toContain('(shallow clone)')
    expect(problem).toContain('fetch-depth: 0')
  })

  it('checks nothing without a current commit (not a git checkout)', async () => {
    const a = ancestry({})
    const recorded = new Map([['web', 'bbb']])
    expect(await staleCommitProblem({ current: '', recorded }, a)).toBeUndefined()
    expect(a.asked).toEqual([])
  })
})
