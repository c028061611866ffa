import { describe, expect, it } from '@jest/globals'
import { parseEntriesBlock, renderEntriesBlock } from '../../../src/report/reviewed-entries.js'

const hash = (c: string) => c.repeat(64)

describe('the reviewed entries line', () => {
  it('round-trips class, key and new hash of every manifest with entries', () => {
    const line = renderEntriesBlock([
      {
        manifest: 'app',
        entries: [
          {
            type: 'modified',
            key: 'v1/ConfigMap/default/settings',
            oldHash: hash('a'),
            newHash: hash('b')
          },
          { type: 'removed', key: 'v1/ConfigMap/default/old', oldHash: hash('c') }
        ]
      },
      { manifest: 'empty', entries: [] }
    ])
    expect(parseEntriesBlock(`<!-- marker -->\nvisible text\n${line}\n`)).toEqual({
      complete: true,
      manifests: {
        app: [
          {
            type: 'modified',
            key: 'v1/ConfigMap/default/settings',
            oldHash: hash('a'),
            newHash: hash('b')
          },
          { type: 'removed', key: 'v1/ConfigMap/default/old', oldHash: hash('c') }
        ]
      }
    })
  })

  it('keeps whole manifests up to the cap and says it is incomplete', () => {
    const entries = [{ type: 'added' as const, key: 'v1/ConfigMap/default/x', newHash: hash('d') }]
    const line = renderEntriesBlock(
      [
        { manifest: 'a', entries },
        { manifest: 'b', entries }
      ],
      130
    )
    expect(parseEntriesBlock(line)).toEqual({ complete: false, manifests: { a: [entries[0]] } })
    expect(line.length).toBeLessThan(130 + 80)
  })

  it('cannot be closed early by a key containing -->', () => {
    const line = renderEntriesBlock([
      {
        manifest: 'app',
        entries: [{ type: 'added', key: 'v1/ConfigMap/a/b-->c', newHash: hash('e') }]
      }
    ])
    expect(line.indexOf('-->')).toBe(line.length - 3)
    expect(parseEntriesBlock(line)?.manifests.app?.[0]?.key).toBe('v1/ConfigMap/a/b-->c')
  })

  it.each([
    ['no line', 'just text'],
    ['broken JSON', '<!-- tazuna-action:reviewed-entries {"complete": -->'],
    [
      'an unknown class',
      '<!-- tazuna-action:reviewed-entries {"complete":true,"manifests":{"a":[["x","k","",""]]}} -->'
    ]
  ])('finds nothing in %s', (_, body) => {
    expect(parseEntriesBlock(body)).toBeUndefined()
  })
})
