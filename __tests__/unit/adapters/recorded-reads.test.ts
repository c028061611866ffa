// The file side of render records (src/adapters/render/reuse.ts): which reads a record can keep,
// and which changes on disk change the digest of their answers. Real files in a temp directory.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { answersDigest, recordedReads } from '../../../src/adapters/render/reuse.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'recorded-reads-'))
  mkdirSync(path.join(root, 'app'))
  writeFileSync(path.join(root, 'app', 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  writeFileSync(path.join(root, 'app', 'cm.yaml'), 'kind: ConfigMap\n')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const at = (...parts: string[]) => path.join(root, ...parts)

describe('recordedReads', () => {
  it('keeps each question once, relative to the root, sorted', () => {
    expect(
      recordedReads(
        [
          ['kind', at('app', 'kustomization.yml')],
          ['file', at('app', 'kustomization.yaml')],
          ['file', at('app', 'kustomization.yaml')],
          ['abs', at('app')],
          ['list', root]
        ],
        root
      )
    ).toEqual([
      ['abs', 'app'],
      ['file', 'app/kustomization.yaml'],
      ['kind', 'app/kustomization.yml'],
      ['list', '']
    ])
  })

  it.each([
    ['a glob', ['glob', '*.yaml']],
    ['a walk', ['walk', '/']],
    ['the network', ['net', '']],
    ['a path outside the root', ['file', '/etc/hostname']],
    ['a relative path', ['file', 'app/cm.yaml']]
  ])('keeps nothing of a render that asked %s', (_, read) => {
    const reads = [['file', at('app', 'cm.yaml')], read] as [string, string][]
    expect(recordedReads(reads, root)).toBeUndefined()
  })
})

describe('answersDigest', () => {
  const reads = () =>
    recordedReads(
      [
        ['file', at('app', 'kustomization.yaml')],
        ['file', at('app', 'cm.yaml')],
        ['kind', at('app', 'kustomization.yml')],
        ['list', at('app')],
        ['abs', at('app', 'cm.yaml')]
      ],
      root
    )!

  it('is the same while nothing changes', () => {
    expect(answersDigest(reads(), root)).toBe(answersDigest(reads(), root))
  })

  it.each<[string, () => void]>([
    ['a file read changed', () => writeFileSync(at('app', 'cm.yaml'), 'kind: Secret\n')],
    [
      'a file appeared where one was only looked for',
      () => writeFileSync(at('app', 'kustomization.yml'), '')
    ],
    ['a directory listed gained an entry', () => writeFileSync(at('app', 'more.yaml'), '')],
    ['a file read went away', () => rmSync(at('app', 'cm.yaml'))],
    [
      'a path now resolves elsewhere in the root',
      () => {
        writeFileSync(at('other.yaml'), 'kind: ConfigMap\n')
        rmSync(at('app', 'cm.yaml'))
        symlinkSync(at('other.yaml'), at('app', 'cm.yaml'))
      }
    ]
  ])('changes when %s', (_, change) => {
    const before = answersDigest(reads(), root)
    change()
    expect(answersDigest(reads(), root)).not.toBe(before)
  })

  it('answers nothing for a path a hand-edited record leads out of the root', () => {
    expect(answersDigest([['file', '../outside.yaml']], root)).toBeUndefined()
    expect(answersDigest([['glob', 'app']], root)).toBeUndefined()
  })
})
