import { describe, expect, it } from '@jest/globals'
import { renderDiffText, renderStateListText } from '../../../src/state/text.js'

const h1 = '1901ed633c6ca0acff5d18568a957c2c9016f5c270d4ba28e7af74759134f060'
const h2 = 'a3a5b30562256c9e8fd0dbe0ff663080701af07cfefa2828663e5b332bf3d2cf'

describe('renderDiffText', () => {
  it('prints the docs/compatibility.md#state-diff-text example byte for byte', () => {
    const text = renderDiffText([
      {
        manifest: 'web',
        entries: [
          { type: 'added', key: 'web//v1/Service/default/web', newHash: h1 },
          { type: 'removed', key: 'web/apps/v1/Deployment/default/old', oldHash: h2 }
        ]
      }
    ])
    expect(text).toBe(
      'Manifest: web\n' +
        '  STATUS         RESOURCE                                                     HASH\n' +
        `  added          /v1/Service/default/web                                      ${h1}\n` +
        `  removed        apps/v1/Deployment/default/old                               (was: ${h2})\n` +
        '\n'
    )
  })

  it('says No changes detected. when no manifest has entries', () => {
    expect(renderDiffText([{ manifest: 'a', entries: [] }])).toBe('No changes detected.\n')
    expect(renderDiffText([])).toBe('No changes detected.\n')
  })

  it('skips manifests without entries and keeps the others in order', () => {
    const text = renderDiffText([
      { manifest: 'a', entries: [{ type: 'always-sync', key: 'a//v1/Secret/d/s', newHash: h1 }] },
      { manifest: 'b', entries: [] },
      {
        manifest: 'c',
        entries: [{ type: 'modified', key: 'c//v1/ConfigMap/d/x', oldHash: h2, newHash: h1 }]
      }
    ])
    expect(text.match(/^Manifest: .*$/gm)).toEqual(['Manifest: a', 'Manifest: c'])
    expect(text).toContain(`  always-sync    /v1/Secret/d/s${' '.repeat(46)} ${h1}\n`)
    expect(text).toContain(`  modified       /v1/ConfigMap/d/x${' '.repeat(43)} ${h1}\n`)
  })

  it('pads by code points and never truncates a long resource', () => {
    const name = 'é'.repeat(70)
    const text = renderDiffText([
      { manifest: 'm', entries: [{ type: 'added', key: `m//v1/K/${name}`, newHash: h1 }] },
      { manifest: 'n', entries: [{ type: 'added', key: 'n//v1/K/日本', newHash: h1 }] }
    ])
    expect(text).toContain(`  added          /v1/K/${name} ${h1}\n`)
    expect(text).toContain(`  added          /v1/K/日本${' '.repeat(52)} ${h1}\n`)
  })

  it('prints an unparseable key as it is', () => {
    const text = renderDiffText([
      { manifest: 'm', entries: [{ type: 'removed', key: 'bad', oldHash: h2 }] }
    ])
    expect(text).toContain(`  removed        bad${' '.repeat(57)} (was: ${h2})\n`)
  })
})

describe('renderStateListText', () => {
  it('prints metadata and rows sorted by key (docs/compatibility.md#state-list-text)', () => {
    const text = renderStateListText([
      {
        manifest: 'state-minimal-nginx',
        state: {
          metadata: { gitCommitHash: 'c0ffee', lastSyncedAt: '2026-05-08T01:02:03Z' },
          entries: new Map([
            ['state-minimal-nginx/apps/v1/Deployment/tazuna-e2e-state/nginx', h1],
            ['state-minimal-nginx//v1/Namespace/tazuna-e2e-state', h2]
          ])
        }
      }
    ])
    expect(text).toBe(
      'Manifest: state-minimal-nginx\n' +
        '  Last synced: 2026-05-08T01:02:03Z\n' +
        '  Git commit: c0ffee\n' +
        `  RESOURCE${' '.repeat(52)} HASH\n` +
        `  /v1/Namespace/tazuna-e2e-state${' '.repeat(30)} ${h2}\n` +
        `  apps/v1/Deployment/tazuna-e2e-state/nginx${' '.repeat(19)} ${h1}\n` +
        '\n'
    )
  })

  it('omits empty metadata lines and reports a manifest without entries', () => {
    const text = renderStateListText([
      {
        manifest: 'a',
        state: { metadata: { gitCommitHash: '', lastSyncedAt: '' }, entries: new Map() }
      },
      {
        manifest: 'b',
        state: {
          metadata: { gitCommitHash: '', lastSyncedAt: '' },
          entries: new Map([['b//v1/K/x', h1]])
        }
      }
    ])
    expect(text).toBe(
      'Manifest: a\n  No state found\n\n' +
        'Manifest: b\n' +
        `  RESOURCE${' '.repeat(52)} HASH\n` +
        `  /v1/K/x${' '.repeat(53)} ${h1}\n\n`
    )
  })
})
