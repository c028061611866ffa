import { describe, expect, it } from '@jest/globals'
import {
  markerManifestCap,
  parseMarker,
  renderMarker,
  sameTarget
} from '../../../src/report/marker.js'

const target = { config: 'tazuna.yaml', environment: 'prod', sha: 'abc' }

describe('marker', () => {
  it('round-trips through the first line of a comment body', () => {
    const body = `${renderMarker(target)}\n### Tazuna Diff`
    expect(parseMarker(body)).toEqual({ tool: 'tazuna-action', schema: 2, ...target })
  })

  it('records the Diff digests, and per-manifest digests up to the cap', () => {
    const digests = { digest: 'a'.repeat(64), manifests: { app: 'b'.repeat(64) } }
    expect(parseMarker(renderMarker(target, digests))?.diff).toEqual(digests)
    const many = Object.fromEntries(
      Array.from({ length: markerManifestCap + 1 }, (_, i) => [`m${i}`, 'c'.repeat(64)])
    )
    const capped = parseMarker(renderMarker(target, { digest: 'a'.repeat(64), manifests: many }))
    expect(capped?.diff).toEqual({ digest: 'a'.repeat(64) })
  })

  it('still finds a schema 1 marker, which has no Diff', () => {
    const old = `<!-- tazuna-action:${JSON.stringify({ tool: 'tazuna-action', schema: 1, ...target })} -->`
    expect(parseMarker(old)).toEqual({ tool: 'tazuna-action', schema: 1, ...target })
  })

  it('cannot be closed early by a config path containing -->', () => {
    const line = renderMarker({ ...target, config: 'a-->b<c>&d.yaml' })
    expect(line.indexOf('-->')).toBe(line.length - 3)
    expect(parseMarker(line)?.config).toBe('a-->b<c>&d.yaml')
  })

  it.each([
    ['a marker that is not on the first line', `hello\n${renderMarker(target)}`],
    ['another tool', '<!-- other-tool:{"tool":"other"} -->'],
    ['broken JSON', '<!-- tazuna-action:{"tool": -->'],
    ['missing fields', '<!-- tazuna-action:{"tool":"tazuna-action","schema":1} -->'],
    ['an empty body', ''],
    [
      'a digest that is not a sha256',
      `<!-- tazuna-action:${JSON.stringify({ tool: 'tazuna-action', schema: 2, ...target, diff: { digest: 'x' } })} -->`
    ]
  ])('ignores %s', (_, body) => {
    expect(parseMarker(body)).toBeUndefined()
  })

  it.each([
    [{ config: 'tazuna.yaml', environment: 'prod', sha: 'other' }, true],
    [{ config: 'tazuna.yaml', environment: '', sha: 'abc' }, false],
    [{ config: 'other.yaml', environment: 'prod', sha: 'abc' }, false]
  ])('matches one comment per config and environment (%o -> %s)', (other, same) => {
    expect(sameTarget(parseMarker(renderMarker(target))!, other)).toBe(same)
  })
})
