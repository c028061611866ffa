import { describe, expect, it } from '@jest/globals'
import { LayerError, resolveLayers, type LayerInput } from '../../../src/plan/layers.js'

const m = (name: string, ...dependsOn: string[]): LayerInput => ({ name, dependsOn })
const names = (layers: LayerInput[][]): string[][] => layers.map((l) => l.map((x) => x.name))

// Vectors: pepabo/tazuna pkg/runner/dag_test.go via docs/compatibility.md#layers.
describe('resolveLayers', () => {
  it.each([
    ['no dependsOn: one manifest per layer', [m('a'), m('b'), m('c')], [['a'], ['b'], ['c']]],
    ['a chain', [m('a'), m('b', 'a'), m('c', 'b')], [['a'], ['b'], ['c']]],
    ['a diamond', [m('a'), m('b', 'a'), m('c', 'a'), m('d', 'b', 'c')], [['a'], ['b', 'c'], ['d']]],
    ['a fan-out', [m('a'), m('b', 'a'), m('c', 'a'), m('d', 'a')], [['a'], ['b', 'c', 'd']]],
    [
      'declaration order inside a layer',
      [m('z', 'y'), m('b'), m('y'), m('a')],
      [['b', 'y', 'a'], ['z']]
    ],
    ['a dependency declared later', [m('b', 'a'), m('a')], [['a'], ['b']]],
    ['nothing', [], []]
  ])('layers %s', (_name, manifests, expected) => {
    expect(names(resolveLayers(manifests))).toEqual(expected)
  })

  it('keeps unnamed and duplicate-named manifests in sequential mode', () => {
    expect(names(resolveLayers([m(''), m('x'), m('x')]))).toEqual([[''], ['x'], ['x']])
  })

  it('returns the manifest objects themselves', () => {
    const a = { name: 'a', path: './a' }
    const b = { name: 'b', dependsOn: ['a'], path: './b' }
    expect(resolveLayers([b, a])).toEqual([[a], [b]])
  })

  it.each([
    ['a self reference', [m('a', 'a')], 'manifest "a" depends on itself', 'self-reference', ['a']],
    [
      'an unknown manifest',
      [m('a'), m('b', 'ghost')],
      'manifest "b" dependsOn references unknown manifest "ghost"',
      'unknown-manifest',
      ['b', 'ghost']
    ],
    [
      'a two-manifest cycle, naming it',
      [m('a', 'b'), m('b', 'a')],
      'circular dependency detected in manifest dependsOn graph: a -> b -> a',
      'cycle',
      ['a', 'b']
    ],
    [
      'a cycle behind a dependent, naming only the cycle',
      [m('root'), m('x', 'root', 'c'), m('c', 'd'), m('d', 'e'), m('e', 'c')],
      'circular dependency detected in manifest dependsOn graph: c -> d -> e -> c',
      'cycle',
      ['c', 'd', 'e']
    ]
  ])('rejects %s', (_name, manifests, message, reason, involved) => {
    let error: unknown
    try {
      resolveLayers(manifests)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(LayerError)
    expect(error).toMatchObject({ message, reason, manifests: involved })
  })
})
