import { describe, expect, it } from '@jest/globals'
import { computeDiff } from '../../../src/state/diff.js'

// Upstream vectors: pepabo/tazuna pkg/state/diff_test.go via
// docs/compatibility.md#diff-classification.
describe('computeDiff', () => {
  it('classifies and orders entries like Tazuna', () => {
    const stored = new Map([
      ['m1//v1/ConfigMap/default/existing', 'old'],
      ['m1//v1/Deployment/default/removed', 'rem'],
      ['m1//v1/Secret/default/always', 'sec'],
      ['m1//v1/ConfigMap/default/unchanged', 'same']
    ])
    const current = new Map([
      ['m1//v1/ConfigMap/default/existing', 'new'],
      ['m1//v1/Service/default/added', 'add'],
      ['m1//v1/Secret/default/always', 'sec'],
      ['m1//v1/ConfigMap/default/unchanged', 'same']
    ])
    expect(computeDiff(stored, current, new Set(['m1//v1/Secret/default/always']))).toEqual([
      { type: 'added', key: 'm1//v1/Service/default/added', newHash: 'add' },
      {
        type: 'modified',
        key: 'm1//v1/ConfigMap/default/existing',
        oldHash: 'old',
        newHash: 'new'
      },
      { type: 'removed', key: 'm1//v1/Deployment/default/removed', oldHash: 'rem' },
      { type: 'always-sync', key: 'm1//v1/Secret/default/always', newHash: 'sec' }
    ])
  })

  it('reports nothing when every hash is equal', () => {
    const same = new Map([['m//v1/ConfigMap/d/a', 'h']])
    expect(computeDiff(same, new Map(same), new Set())).toEqual([])
  })

  it('reports an always-sync key even when nothing is stored', () => {
    expect(computeDiff(new Map(), new Map([['k', 'h']]), new Set(['k']))).toEqual([
      { type: 'always-sync', key: 'k', newHash: 'h' }
    ])
  })

  it('reports a stored always-sync key that is no longer built as removed', () => {
    expect(computeDiff(new Map([['k', 'h']]), new Map(), new Set(['k']))).toEqual([
      { type: 'removed', key: 'k', oldHash: 'h' }
    ])
  })

  it('sorts keys of one type in UTF-8 byte order', () => {
    const current = new Map([
      ['m//v1/K/😀', 'h'],
      ['m//v1/K/\ue000', 'h'],
      ['m//v1/K/b', 'h'],
      ['m//v1/K/B', 'h']
    ])
    expect(computeDiff(new Map(), current, new Set()).map((e) => e.key)).toEqual([
      'm//v1/K/B',
      'm//v1/K/b',
      'm//v1/K/\ue000',
      'm//v1/K/😀'
    ])
  })
})
