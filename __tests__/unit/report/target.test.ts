/**
 * Input `target` (README.md#one-workflow-for-a-fleet): one comment, reviewed Diff, drift issue and
 * report per config, environment and target; without a target, everything as before (markers of
 * earlier runs keep matching).
 */
import { describe, expect, it } from '@jest/globals'
import {
  driftIssueTitle,
  isDriftIssueOf,
  renderDriftMarker
} from '../../../src/report/drift-issue.js'
import { parseMarker, renderMarker, sameTarget } from '../../../src/report/marker.js'
import { titleScope } from '../../../src/report/title-scope.js'
import { parseTarget } from '../../../src/inputs.js'
import { InputError } from '../../../src/errors.js'

const eu = { config: 'tazuna.yaml', environment: 'production', target: 'eu-1', sha: 'a'.repeat(40) }
const us = { ...eu, target: 'us-1' }
const none = { config: 'tazuna.yaml', environment: 'production', sha: 'a'.repeat(40) }

describe('target', () => {
  it('is part of the marker: each target finds only its own comment', () => {
    const marker = parseMarker(renderMarker(eu))!
    expect(marker.target).toBe('eu-1')
    expect(sameTarget(marker, eu)).toBe(true)
    expect(sameTarget(marker, us)).toBe(false)
    expect(sameTarget(marker, none)).toBe(false)
  })

  it('leaves the marker of a run without one as it was', () => {
    const line = renderMarker(none)
    expect(line).toBe(
      `<!-- tazuna-action:{"tool":"tazuna-action","schema":2,"config":"tazuna.yaml","environment":"production","sha":"${'a'.repeat(40)}"} -->`
    )
    expect(sameTarget(parseMarker(line)!, { ...none, target: '' })).toBe(true)
  })

  it('names the target in titles and the drift issue', () => {
    expect(titleScope(eu)).toBe(' (environment `production`, target `eu-1`)')
    expect(titleScope({ environment: '', target: 'eu-1' })).toBe(' (target `eu-1`)')
    expect(titleScope(none)).toBe(' (environment `production`)')
    expect(driftIssueTitle(eu)).toBe('Tazuna drift: tazuna.yaml (production, eu-1)')
    expect(isDriftIssueOf(`${renderDriftMarker(eu)}\nbody`, eu)).toBe(true)
    expect(isDriftIssueOf(`${renderDriftMarker(eu)}\nbody`, us)).toBe(false)
    expect(renderDriftMarker(none)).toBe(
      '<!-- tazuna-action-drift:{"config":"tazuna.yaml","environment":"production"} -->'
    )
  })

  it('accepts names, refuses anything that is not one', () => {
    expect(parseTarget('eu-west-1/prod:a_b.c')).toBe('eu-west-1/prod:a_b.c')
    expect(parseTarget('')).toBe('')
    for (const bad of ['-x', 'a b', 'a`b', 'x'.repeat(101), 'a\nb']) {
      expect(() => parseTarget(bad)).toThrow(InputError)
    }
  })
})
