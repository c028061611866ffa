// `state drift` / `status` classification and text (docs/compatibility.md#state-drift; pepabo/tazuna
// pkg/runner/state_drift.go and status.go): drifted before missing then key, Go's `%-Ns`
// padding that never truncates, `(stored: …)` hash columns, `(no state)`.
import { describe, expect, it } from '@jest/globals'
import {
  classifyDrift,
  driftOf,
  statusOf,
  type LiveEntry,
  type LiveManifest
} from '../../../src/state/drift.js'
import { renderDriftText, renderStatusText } from '../../../src/state/drift-text.js'
import { computeContentHash } from '../../../src/state/hash.js'

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }
const cmHash = computeContentHash(cm)

const manifest = (entries: LiveEntry[], hasState = true): LiveManifest => ({
  manifest: 'web',
  type: 'kustomize',
  hasState,
  entries
})

describe('classifyDrift', () => {
  it.each([
    ['an unchanged live object', { kind: 'found', object: cm } as const, cmHash, undefined],
    [
      'a live object with server-only metadata',
      {
        kind: 'found',
        object: { ...cm, metadata: { ...cm.metadata, uid: 'u', resourceVersion: '1' }, status: {} }
      } as const,
      cmHash,
      undefined
    ],
    ['a missing object', { kind: 'missing' } as const, 'h', 'live-missing'],
    ['a changed object', { kind: 'found', object: cm } as const, 'other', 'live-drifted']
  ])('classifies %s', (_, read, storedHash, type) => {
    expect(classifyDrift({ key: 'web//v1/ConfigMap/ns/a', storedHash, read })?.type).toBe(type)
  })

  it('fails the whole command on a read error, naming the key', () => {
    expect(() =>
      classifyDrift({ key: 'k', storedHash: 'h', read: { kind: 'error', message: 'HTTP 403' } })
    ).toThrow('failed to get live resource for k: HTTP 403')
  })
})

describe('renderDriftText', () => {
  it('prints No drift detected. when nothing drifted', () => {
    expect(renderDriftText(driftOf([manifest([])]))).toBe('No drift detected.\n')
  })

  it('sorts drifted before missing, then by key, with Go column widths', () => {
    const text = renderDriftText(
      driftOf([
        manifest([
          { key: 'web//v1/ConfigMap/ns/a', storedHash: 's1', read: { kind: 'missing' } },
          {
            key: 'web/apps/v1/Deployment/ns/z',
            storedHash: 's2',
            read: { kind: 'found', object: cm }
          }
        ])
      ])
    )
    expect(text).toBe(
      'Manifest: web\n' +
        '  STATUS         RESOURCE                                                     HASH\n' +
        `  live-drifted   apps/v1/Deployment/ns/z                                      ${cmHash} (stored: s2)\n` +
        '  live-missing   /v1/ConfigMap/ns/a                                           (stored: s1)\n' +
        '\n'
    )
  })

  it('never truncates a resource longer than its column', () => {
    const name = 'n'.repeat(70)
    const text = renderDriftText(
      driftOf([
        manifest([
          { key: `web//v1/ConfigMap/ns/${name}`, storedHash: 's', read: { kind: 'missing' } }
        ])
      ])
    )
    expect(text).toContain(`  live-missing   /v1/ConfigMap/ns/${name} (stored: s)\n`)
  })
})

describe('renderStatusText', () => {
  it('prints (no state) for a manifest without State', () => {
    expect(renderStatusText(statusOf([manifest([], false)]))).toBe(
      'Manifest: web\n  (no state)\n\n'
    )
  })

  it('prints one row per key with the namespace when there is one', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      status: { phase: 'Pending' }
    }
    const text = renderStatusText(
      statusOf([
        manifest([
          { key: 'web//v1/ConfigMap/ns/a', storedHash: 'h', read: { kind: 'found', object: cm } },
          { key: 'web//v1/Namespace/ns', storedHash: 'h', read: { kind: 'missing' } },
          { key: 'web//v1/Pod/ns/p', storedHash: 'h', read: { kind: 'found', object: pod } },
          { key: 'web//v1/Secret/ns/s', storedHash: 'h', read: { kind: 'error', message: 'x' } }
        ])
      ])
    )
    expect(text).toBe(
      'Manifest: web\n' +
        '  STATUS    KIND                 NAMESPACE/NAME\n' +
        '  Ready     ConfigMap            ns/a\n' +
        '  Missing   Namespace            ns\n' +
        '  NotReady  Pod                  ns/p\n' +
        '  Error     Secret               ns/s\n' +
        '\n'
    )
  })
})
