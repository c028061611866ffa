import { describe, expect, it } from '@jest/globals'
import { createHash } from 'node:crypto'
import { computeContentHash } from '../../../src/state/hash.js'
import { readSnapshot } from '../../../src/state/snapshot-read.js'
import {
  isSecretKey,
  serializeSnapshot,
  snapshotManifestOf,
  SnapshotError,
  type StateSnapshot
} from '../../../src/state/snapshot.js'
import type { State } from '../../../src/state/state.js'

const config = { path: 'deploy/tazuna.yaml', environment: 'production' }

// A Secret with a low-entropy value, as a State would record it: its ContentHash is the one a
// published snapshot must never hold.
const weakSecret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'app' },
  stringData: { password: 'password' }
}
const weakSecretHash = computeContentHash(weakSecret)
const configMapHash = 'c'.repeat(64)

function recordedState(): State {
  return {
    metadata: { gitCommitHash: 'a'.repeat(40), lastSyncedAt: '2026-01-02T03:04:05Z' },
    entries: new Map([
      ['app//v1/Secret/app/db', weakSecretHash],
      ['app//v1/ConfigMap/app/settings', configMapHash]
    ])
  }
}

function snapshot(overrides: Partial<StateSnapshot> = {}): StateSnapshot {
  return {
    config,
    commit: 'b'.repeat(40),
    createdAt: '2026-01-02T04:00:00Z',
    writtenBy: 'tazuna-action cli (pid 1) on host',
    version: '1.0.0',
    manifests: new Map([['app', snapshotManifestOf(recordedState())]]),
    ...overrides
  }
}

/** The document of a serialized snapshot, changed by `edit`, with its digest recomputed. */
function resealed(edit: (doc: Record<string, unknown>) => void): string {
  const doc = JSON.parse(serializeSnapshot(snapshot())) as Record<string, unknown>
  edit(doc)
  delete doc.digest
  const canonical = JSON.stringify(sortKeys(doc))
  const digest = `sha256:${createHash('sha256').update(canonical).digest('hex')}`
  return JSON.stringify({ ...doc, digest })
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])])
  )
}

describe('isSecretKey', () => {
  it.each([
    ['app//v1/Secret/ns/db', true],
    ['app//v1/Secret/db', true],
    ['app//v1/ConfigMap/ns/db', false],
    ['app/example.com/v1/Secret/ns/db', false],
    ['app/apps/v1/Deployment/ns/Secret', false]
  ])('%s is a Secret key: %s', (key, expected) => {
    expect(isSecretKey(key)).toBe(expected)
  })
})

describe('serializeSnapshot', () => {
  it('holds neither a planted Secret value nor its ContentHash anywhere in its bytes', () => {
    const text = serializeSnapshot(snapshot())
    expect(text).not.toContain(weakSecretHash)
    expect(text).not.toContain('password')
    expect(text).toContain('"app//v1/Secret/app/db"')
    expect(text).toContain(configMapHash)
  })

  it('keeps the Secret as present and the other entries and _metadata as recorded', () => {
    const doc = JSON.parse(serializeSnapshot(snapshot())) as {
      manifests: Record<string, unknown>
    }
    expect(doc.manifests.app).toEqual({
      _metadata: { gitCommitHash: 'a'.repeat(40), lastSyncedAt: '2026-01-02T03:04:05Z' },
      entries: { 'app//v1/ConfigMap/app/settings': configMapHash },
      secrets: ['app//v1/Secret/app/db']
    })
  })

  it('digests the canonical JSON of the document without its digest', () => {
    const text = serializeSnapshot(snapshot())
    const { digest, ...body } = JSON.parse(text) as Record<string, unknown>
    const canonical = JSON.stringify(sortKeys(body))
    expect(digest).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`)
  })

  it('writes the same bytes whatever order the manifests come in', () => {
    const a = snapshotManifestOf(recordedState())
    const b = snapshotManifestOf({ ...recordedState(), entries: new Map() })
    const one = serializeSnapshot(
      snapshot({
        manifests: new Map([
          ['a', a],
          ['b', b]
        ])
      })
    )
    const other = serializeSnapshot(
      snapshot({
        manifests: new Map([
          ['b', b],
          ['a', a]
        ])
      })
    )
    expect(one).toBe(other)
  })
})

describe('readSnapshot', () => {
  it('reads back what serializeSnapshot wrote', () => {
    const read = readSnapshot(serializeSnapshot(snapshot()), 'snap.json', config)
    expect(read).toEqual(snapshot())
  })

  it('reads a snapshot re-indented or with its fields in another order', () => {
    const doc = JSON.parse(serializeSnapshot(snapshot())) as Record<string, unknown>
    const reordered = Object.fromEntries(Object.entries(doc).reverse())
    expect(readSnapshot(JSON.stringify(reordered), 'snap.json', config)).toEqual(snapshot())
  })

  const refusals: [string, () => string, RegExp][] = [
    ['text that is not JSON', () => '{"schema":', /^State snapshot snap\.json: not valid JSON/],
    ['a JSON array', () => '[]', /: not a JSON object$/],
    ['another document', () => '{"kind":"ConfigMap"}', /: not a State snapshot/],
    [
      'another schema version',
      () => resealed((d) => (d.schemaVersion = 2)),
      /: schema version 2; this program reads version 1$/
    ],
    [
      'a changed entry under the old digest',
      () => serializeSnapshot(snapshot()).replace(configMapHash, 'd'.repeat(64)),
      /: its digest does not match its content/
    ],
    [
      'a cut-short file',
      () => serializeSnapshot(snapshot()).replace(/"digest": "sha256:[0-9a-f]+"/, '"digest": ""'),
      /: field "digest" is missing or not sha256:<64 hex digits>$/
    ],
    [
      'a Secret entry with its hash',
      () =>
        resealed((d) => {
          const app = (d.manifests as Record<string, { entries: Record<string, string> }>).app!
          app.entries['app//v1/Secret/app/db'] = weakSecretHash
        }),
      /: entry "app\/\/v1\/Secret\/app\/db" of manifests\.app is a Secret with a hash$/
    ],
    [
      'a field of the wrong type',
      () => resealed((d) => (d.commit = 1)),
      /: field "commit" is missing or not a string$/
    ],
    ['an unknown field', () => resealed((d) => (d.extra = 'x')), /: unknown field "extra"$/],
    [
      'another environment',
      () => resealed((d) => (d.config = { ...config, environment: 'staging' })),
      /: it belongs to config "deploy\/tazuna\.yaml", environment "staging", not to config "deploy\/tazuna\.yaml", environment "production" of this run$/
    ],
    [
      'another config',
      () => resealed((d) => (d.config = { ...config, path: 'tazuna.yaml' })),
      /: it belongs to config "tazuna\.yaml"/
    ]
  ]
  it.each(refusals)('refuses %s, naming the file and the problem', (_, text, message) => {
    const read = () => readSnapshot(text(), 'snap.json', config)
    expect(read).toThrow(SnapshotError)
    expect(read).toThrow(message)
  })
})
