// The ConfigMap data size rule and the conflict rule of State saves, as tables.
import { describe, expect, it } from '@jest/globals'
import { untouchedEntriesUnchanged } from '../../../src/apply/state-conflict.js'
import {
  assertStateFits,
  CONFIGMAP_DATA_LIMIT,
  configMapDataSize
} from '../../../src/apply/state-size.js'

describe('configMapDataSize', () => {
  it.each<[string, Record<string, string>, number]>([
    ['empty', {}, 0],
    ['counts values only', { 'a-very-long-key': 'xy' }, 2],
    ['counts UTF-8 bytes', { a: 'é日' }, 5],
    ['sums all values', { a: 'x', b: 'yz' }, 3]
  ])('%s', (_name, data, size) => {
    expect(configMapDataSize(data)).toBe(size)
  })

  it('accepts data exactly at the limit and refuses one byte more, naming manifest and entries', () => {
    expect(() => assertStateFits('m', { a: 'x'.repeat(CONFIGMAP_DATA_LIMIT) }, 1)).not.toThrow()
    expect(() => assertStateFits('web', { a: 'x'.repeat(CONFIGMAP_DATA_LIMIT + 1) }, 7)).toThrow(
      'state of manifest "web" is too large to save: 7 entries make 1048577 bytes of ConfigMap data, ' +
        "over the API server's limit of 1048576 bytes (1 MiB); split the manifest into smaller ones"
    )
  })
})

describe('untouchedEntriesUnchanged', () => {
  const m = (o: Record<string, string>) => new Map(Object.entries(o))
  it.each<[string, Record<string, string>, Record<string, string>, string[], boolean]>([
    ['nothing changed', { a: '1' }, { a: '1' }, [], true],
    ['only a touched entry changed', { a: '1', b: '1' }, { a: '2', b: '1' }, ['a'], true],
    ['an untouched entry changed', { a: '1', b: '1' }, { a: '1', b: '2' }, ['a'], false],
    ['an untouched entry appeared', { a: '1' }, { a: '1', c: '1' }, ['a'], false],
    ['an untouched entry disappeared', { a: '1', b: '1' }, { a: '1' }, ['a'], false],
    ['a touched entry appeared', {}, { a: '9' }, ['a'], true]
  ])('%s → %s', (_name, base, current, touched, expected) => {
    expect(untouchedEntriesUnchanged(m(base), m(current), new Set(touched))).toBe(expected)
  })
})
