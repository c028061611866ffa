import { describe, expect, it } from '@jest/globals'
import { parseMarker, renderMarker, sameTarget } from '../../../src/report/marker.js'

const target = { config: 'tazuna.yaml', environment: 'prod', sha: 'abc' }

describe('marker', () => {
  it('round-trips through the first line of a comment body', () => {
    const body = `${renderMarker(target)}\n### Tazuna Diff`
    expect(parseMarker(body)).toEqual({ tool: 'tazuna-action', schema: 1, ...target })
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
    ['an empty body', '']
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
