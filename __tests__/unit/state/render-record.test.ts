// Render records (src/state/render-record.ts): the annotation's format, and which changes make
// a record's key or entries digest differ. Digests are compared with each other, never with
// constants: what matters is which inputs they separate.
import { describe, expect, it } from '@jest/globals'
import {
  decodeRenderRecord,
  encodeRenderRecord,
  entriesDigest,
  MAX_RECORD_CHARS,
  recordKey,
  type RenderRecord
} from '../../../src/state/render-record.js'

const record: RenderRecord = {
  reads: [
    ['file', 'app/kustomization.yaml'],
    ['kind', 'app/kustomization.yml']
  ],
  key: 'a'.repeat(64),
  entries: 'b'.repeat(64)
}

describe('render record annotation', () => {
  it('decodes what it encodes', () => {
    expect(decodeRenderRecord(encodeRenderRecord(record))).toEqual(record)
  })

  it.each([
    ['nothing', undefined],
    ['not JSON', '{'],
    ['another version', JSON.stringify({ ...record, v: 2 })],
    ['a key that is not a sha256', JSON.stringify({ ...record, v: 1, key: 'A'.repeat(64) })],
    ['no entries digest', JSON.stringify({ v: 1, key: record.key, reads: [] })],
    ['a read that is not a pair', JSON.stringify({ ...record, v: 1, reads: [['file']] })],
    ['a read with a number', JSON.stringify({ ...record, v: 1, reads: [['file', 1]] })],
    ['an array', '[]']
  ])('reads %s as no record', (_, text) => {
    expect(decodeRenderRecord(text)).toBeUndefined()
  })

  it('keeps no record longer than the limit', () => {
    const long = Array.from({ length: 2000 }, (_, i): [string, string] => [
      'file',
      `dir/${'x'.repeat(30)}-${i}.yaml`
    ])
    expect(encodeRenderRecord({ ...record, reads: long })).toBeUndefined()
    expect(decodeRenderRecord('x'.repeat(MAX_RECORD_CHARS + 1))).toBeUndefined()
  })
})

describe('entriesDigest', () => {
  const entries = new Map([
    ['m//v1/ConfigMap/ns/a', '1'.repeat(64)],
    ['m//v1/ConfigMap/ns/b', '2'.repeat(64)]
  ])

  it('does not depend on the order of the entries', () => {
    expect(entriesDigest(new Map([...entries].reverse()))).toBe(entriesDigest(entries))
  })

  it('separates another hash, another key, an entry more or less', () => {
    const digests = [
      entriesDigest(entries),
      entriesDigest(new Map([...entries, ['m//v1/ConfigMap/ns/b', '3'.repeat(64)]])),
      entriesDigest(new Map([...entries, ['m//v1/ConfigMap/ns/c', '2'.repeat(64)]])),
      entriesDigest(new Map([...entries].slice(0, 1))),
      entriesDigest(new Map())
    ]
    expect(new Set(digests).size).toBe(digests.length)
  })

  it('cannot be fooled by moving a separator between key and hash', () => {
    expect(entriesDigest(new Map([['a', 'b\0c']]))).not.toBe(
      entriesDigest(new Map([['a\0b', 'c']]))
    )
  })
})

describe('recordKey', () => {
  const subject = { engine: 'e'.repeat(64), manifest: '["m","kustomize","app",""]' }

  it('separates another engine, other settings, other answers', () => {
    const keys = [
      recordKey(subject, 'answers'),
      recordKey({ ...subject, engine: 'f'.repeat(64) }, 'answers'),
      recordKey({ ...subject, manifest: '["m","kustomize","app","ns"]' }, 'answers'),
      recordKey(subject, 'other answers')
    ]
    expect(new Set(keys).size).toBe(keys.length)
    expect(recordKey(subject, 'answers')).toBe(keys[0])
  })
})
