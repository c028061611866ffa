import { describe, expect, it } from '@jest/globals'
import {
  compareWithReviewed,
  type GateManifest,
  type ReviewedDiff
} from '../../../src/report/diff-gate.js'
import { describeVerdict, refusalMessage } from '../../../src/report/gate-text.js'
import { parseEntriesBlock, renderEntriesBlock } from '../../../src/report/reviewed-entries.js'
import { diffDigests } from '../../../src/state/diff-digest.js'
import type { DiffEntry } from '../../../src/state/diff.js'

const h = (c: string) => c.repeat(64)
const key = 'v1/ConfigMap/default/settings'
const modified = (oldHash: string, newHash: string): DiffEntry => ({
  type: 'modified',
  key,
  oldHash,
  newHash
})

/** The Diff as the pull request's comment records it. */
function reviewedOf(
  diff: { manifest: string; entries: DiffEntry[] }[],
  options: { head?: string; lastHead?: string; withEntries?: boolean } = {}
): { found: ReviewedDiff } {
  const entries = parseEntriesBlock(renderEntriesBlock(diff))!
  return {
    found: {
      where: '#1',
      pullRequest: 1,
      computedFor: options.head ?? 'a1',
      lastHead: options.lastHead ?? options.head ?? 'a1',
      digests: diffDigests(diff),
      ...(options.withEntries === false ? {} : { entries })
    }
  }
}

const now = (entries: DiffEntry[], recorded: [string, string][] = []): GateManifest[] => [
  { manifest: 'app', entries, recorded: new Map(recorded) }
]

describe('compareWithReviewed', () => {
  it('finds the reviewed Diff when every entry matches', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }])
    const verdict = compareWithReviewed(reviewed, now([modified(h('0'), h('1'))]))
    expect(verdict.reviewed).toBe(true)
    expect(describeVerdict(verdict).headline).toMatch(/^Applies the Diff reviewed on #1 \(digest /)
  })

  it('names an entry whose recorded hash moved since the review (the two-PR race)', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }])
    const verdict = compareWithReviewed(reviewed, now([modified(h('2'), h('1'))]))
    expect(verdict.reviewed).toBe(false)
    expect(verdict.differences).toEqual([
      {
        manifest: 'app',
        key,
        type: 'modified',
        change: 'changed',
        reviewed: { oldHash: h('0'), newHash: h('1') },
        apply: { oldHash: h('2'), newHash: h('1') }
      }
    ])
    expect(describeVerdict(verdict).details).toEqual([
      `changed: manifest "app" ${key} (modified): reviewed 000000000000 → 111111111111, ` +
        'applying 222222222222 → 111111111111'
    ])
  })

  it('names an entry whose new hash is not the reviewed one', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }])
    const verdict = compareWithReviewed(reviewed, now([modified(h('0'), h('3'))]))
    expect(verdict.differences.map((d) => d.change)).toEqual(['changed'])
  })

  it('names added entries and reviewed entries the apply lacks', () => {
    const other = { type: 'added' as const, key: 'v1/ConfigMap/default/other', newHash: h('4') }
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }])
    const verdict = compareWithReviewed(reviewed, now([other], [[key, h('0')]]))
    expect(verdict.differences.map((d) => [d.change, d.key])).toEqual([
      ['added', other.key],
      ['missing', key]
    ])
  })

  it('does not count a reviewed entry that State already records', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }])
    expect(compareWithReviewed(reviewed, now([], [[key, h('1')]])).reviewed).toBe(true)
  })

  it('counts a Diff computed for an older head than the pull request has as not reviewed', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [] }], { head: 'a1', lastHead: 'b2' })
    const verdict = compareWithReviewed(reviewed, now([]))
    expect(verdict.reviewed).toBe(false)
    expect(describeVerdict(verdict).details[0]).toContain("the pull request's last head is b2")
  })

  it('names manifests by digest when the comment holds no entries', () => {
    const reviewed = reviewedOf([{ manifest: 'app', entries: [modified(h('0'), h('1'))] }], {
      withEntries: false
    })
    const verdict = compareWithReviewed(reviewed, now([modified(h('0'), h('3'))]))
    expect(verdict.unnamed).toEqual(['app'])
  })

  it('says why there is nothing to compare with, and what to do in require mode', () => {
    const verdict = compareWithReviewed(
      { missing: 'commit abc came from no merged pull request' },
      now([])
    )
    expect(verdict.reviewed).toBe(false)
    expect(refusalMessage(verdict)).toContain(
      'Nothing was applied; State and the cluster are unchanged.'
    )
    expect(refusalMessage(verdict)).toContain('Deploy through a pull request')
  })
})
