// The document and object size limits (docs/reliability.md#size-limits). The 3 MiB figure is
// kube-apiserver's request body limit; the sizes below are built around it, one byte either side.
import { describe, expect, it } from '@jest/globals'
import { ConfigError, LimitError } from '../../../src/errors.js'
import { objectsFromYaml } from '../../../src/objects/objects.js'
import {
  assertObjectSizes,
  formatBytes,
  MAX_DOCUMENT_BYTES,
  MAX_OBJECT_BYTES,
  objectBytes
} from '../../../src/objects/size-limits.js'
import type { JsonObject } from '../../../src/go/yaml.js'

/** A ConfigMap whose JSON is exactly `bytes` long. */
function configMapOf(bytes: number, namespace = 'team'): JsonObject {
  const base: JsonObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace },
    data: { k: '' }
  }
  return { ...base, data: { k: 'x'.repeat(bytes - objectBytes(base)) } }
}

describe('assertObjectSizes', () => {
  it('accepts an object of exactly the limit', () => {
    const cm = configMapOf(MAX_OBJECT_BYTES)
    expect(objectBytes(cm)).toBe(MAX_OBJECT_BYTES)
    expect(() => assertObjectSizes([cm])).not.toThrow()
  })

  it('refuses one byte more, naming the object, its size and the limit', () => {
    const small = configMapOf(100)
    const run = (): void => assertObjectSizes([small, configMapOf(MAX_OBJECT_BYTES + 1)])
    expect(run).toThrow(LimitError)
    expect(run).toThrow(
      'object ConfigMap team/big is 3.0 MiB (3145729 bytes), over the 3 MiB the API server ' +
        'accepts in one request'
    )
  })

  it('names the first object over the limit and counts the others', () => {
    const run = (): void => assertObjectSizes([configMapOf(600, ''), configMapOf(600, 'b')], 500)
    expect(run).toThrow(
      'object ConfigMap big is 600 bytes, over the 500 bytes the API server accepts in one ' +
        'request (and 1 more objects over the limit)'
    )
  })
})

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB (1536 bytes)'],
    [3 * 1024 * 1024, '3 MiB'],
    [16 * 1024 * 1024 + 1, '16.0 MiB (16777217 bytes)']
  ])('%d -> %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text))
})

describe('the document size limit when splitting a stream', () => {
  const file = 'rendered.yaml'
  const bigDocument = (bytes: number): string => {
    const head = 'kind: ConfigMap\nmetadata: {name: big}\ndata:\n  k: '
    return `${head}${'x'.repeat(bytes - head.length - 1)}\n`
  }

  it('refuses a YAML document over the limit before parsing it, naming file and line', () => {
    const text = `kind: A\nmetadata: {name: a}\n---\n${bigDocument(MAX_DOCUMENT_BYTES + 1)}`
    let error: unknown
    try {
      objectsFromYaml(text, { file })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      {
        file,
        line: 4,
        message:
          'the document starting here is 16.0 MiB (16777217 bytes), over the limit of 16 MiB ' +
          'for one document (docs/reliability.md#size-limits)'
      }
    ])
  })

  it('accepts a document of exactly the limit', () => {
    expect(objectsFromYaml(bigDocument(MAX_DOCUMENT_BYTES), { file })).toHaveLength(1)
  })

  it('refuses an oversized JSON document the same way', () => {
    const value = JSON.stringify({
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { k: 'x'.repeat(MAX_DOCUMENT_BYTES) }
    })
    expect(() => objectsFromYaml(`\n${value}\n`, { file })).toThrow(
      /^rendered\.yaml:2: the document starting here is 16\.0 MiB \(\d+ bytes\), over the limit/
    )
  })

  it('counts bytes, not characters', () => {
    // 3-byte characters: under the limit in characters, over it in bytes.
    const text = `kind: A\nmetadata: {name: a}\nv: ${'あ'.repeat(MAX_DOCUMENT_BYTES / 3)}\n`
    expect(() => objectsFromYaml(text, { file })).toThrow(/over the limit of 16 MiB/)
  })
})
