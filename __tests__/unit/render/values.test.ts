// Release values (docs/compatibility.md#helmfile step 5): Helm's deep merge and the ordered `-f`
// sources.
import { describe, expect, it } from '@jest/globals'
import {
  mergeHelmValues,
  planValuesSources,
  ValuesEntryError
} from '../../../src/render/helmfile/values.js'
import type { JsonObject } from '../../../src/go/yaml.js'

describe('mergeHelmValues', () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    ['later scalars win', { a: 1, b: 'x' }, { a: 2 }, { a: 2, b: 'x' }],
    [
      'maps merge recursively',
      { m: { a: 1, n: { x: 1 } } },
      { m: { b: 2, n: { y: 2 } } },
      { m: { a: 1, b: 2, n: { x: 1, y: 2 } } }
    ],
    ['lists are replaced, not appended', { l: [1, 2] }, { l: [3] }, { l: [3] }],
    ['a map replaces a scalar', { k: 'x' }, { k: { a: 1 } }, { k: { a: 1 } }],
    ['a scalar replaces a map', { k: { a: 1 } }, { k: 'x' }, { k: 'x' }],
    [
      'null is kept (Helm later deletes the chart default)',
      { k: { a: 1 } },
      { k: null },
      { k: null }
    ],
    ['empty over anything is a no-op', { a: 1 }, {}, { a: 1 }]
  ])('%s', (_name, a, b, merged) => {
    expect(mergeHelmValues(a, b)).toEqual(merged)
  })

  it('does not modify its inputs', () => {
    const a: JsonObject = { m: { a: 1 } }
    mergeHelmValues(a, { m: { b: 2 } })
    expect(a).toEqual({ m: { a: 1 } })
  })
})

describe('planValuesSources', () => {
  it('keeps values[] order, resolves files against the helmfile dir, then extraValueFiles', () => {
    expect(
      planValuesSources(
        ['values/base.yaml', { a: 1 }, null, 'values/env.yaml'],
        ['extra.yaml'],
        '/h'
      )
    ).toEqual([
      { kind: 'file', path: '/h/values/base.yaml', entry: 'values/base.yaml' },
      { kind: 'inline', values: { a: 1 } },
      { kind: 'file', path: '/h/values/env.yaml', entry: 'values/env.yaml' },
      { kind: 'file', path: '/h/extra.yaml', entry: 'extra.yaml' }
    ])
  })

  it('merges adjacent inline maps into one source with Helm deep merge', () => {
    expect(planValuesSources([{ m: { a: 1 } }, null, { m: { b: 2 } }], [], '/h')).toEqual([
      { kind: 'inline', values: { m: { a: 1, b: 2 } } }
    ])
  })

  it('keeps absolute paths absolute', () => {
    expect(planValuesSources(['/abs/v.yaml'], [], '/h')).toEqual([
      { kind: 'file', path: '/abs/v.yaml', entry: '/abs/v.yaml' }
    ])
  })

  it.each([[[1]], [[true]], [[['a']]]])('rejects the entry %j naming its index', (values) => {
    expect(() => planValuesSources(values, [], '/h')).toThrow(ValuesEntryError)
    expect(() => planValuesSources(values, [], '/h')).toThrow('values[0]')
  })
})
