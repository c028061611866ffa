/**
 * State snapshots (docs/state-snapshots.md): every manifest's recorded State of one
 * configuration and environment, as a JSON document that a run without cluster access can
 * compute the Diff against. Secret entries are kept as present without their ContentHash: that
 * hash is a sha256 over the Secret's values, and a published hash of a weak value can be guessed.
 *
 * The digest is `sha256:<hex>` over the canonical JSON (src/state/hash.ts: keys in byte order, no
 * whitespace) of the whole document without its `digest` field; the file itself may be indented.
 */
import { createHash } from 'node:crypto'
import { compareBytes } from './byte-order.js'
import { canonicalJson } from './hash.js'
import { resourceOf } from './key.js'
import { METADATA_KEY, type State, type StateMetadata } from './state.js'

/** The `schema` field: what the document is. */
export const SNAPSHOT_SCHEMA = 'tazuna-action/state-snapshot'
/** The `schemaVersion` this program writes and reads. */
export const SNAPSHOT_SCHEMA_VERSION = 1

/** Which configuration a snapshot belongs to. */
export interface SnapshotConfig {
  /** tazuna.yaml relative to the repository root, `/`-separated (`deploy/tazuna.yaml`). */
  path: string
  /** The environment (`-e`, input `environment`), or "". */
  environment: string
}

/** One manifest's State as the snapshot holds it. */
export interface SnapshotManifest {
  metadata: StateMetadata
  /** State key -> ContentHash, for every entry that is not a Secret. */
  entries: ReadonlyMap<string, string>
  /** State keys of Secrets: present in State, their hash left out. Byte order. */
  secrets: readonly string[]
}

/** A State snapshot, read or about to be written. */
export interface StateSnapshot {
  config: SnapshotConfig
  /** The commit of the tazuna.yaml checkout that wrote the snapshot ("" outside git). */
  commit: string
  /** When it was written, RFC 3339 in UTC (`2026-01-02T03:04:05Z`). */
  createdAt: string
  /** Who wrote it: the command line's process or the action's run. */
  writtenBy: string
  /** This program's version. */
  version: string
  /** Manifest name -> its State; a manifest the snapshot does not list has no State. */
  manifests: ReadonlyMap<string, SnapshotManifest>
}

/** A snapshot that cannot be used; the message names the file and the problem. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
}

/**
 * Whether a state key is a Secret's (core group, kind Secret: resource column `/v1/Secret/…`),
 * whose ContentHash a snapshot leaves out.
 */
export function isSecretKey(key: string): boolean {
  return resourceOf(key).startsWith('/v1/Secret/')
}

/** A manifest's State for a snapshot: Secret entries become present-only, without their hash. */
export function snapshotManifestOf(state: State): SnapshotManifest {
  const entries = new Map<string, string>()
  const secrets: string[] = []
  for (const key of [...state.entries.keys()].sort(compareBytes)) {
    if (isSecretKey(key)) secrets.push(key)
    else entries.set(key, state.entries.get(key) ?? '')
  }
  return { metadata: { ...state.metadata }, entries, secrets }
}

/**
 * The snapshot's file text: indented JSON ending in a newline, fields in a fixed order, its
 * digest last. Holds no Secret hash by construction (SnapshotManifest has none).
 */
export function serializeSnapshot(snapshot: StateSnapshot): string {
  const body = documentOf(snapshot)
  return `${JSON.stringify({ ...body, digest: digestOf(body) }, null, 2)}\n`
}

/** `sha256:<hex>` over the canonical JSON of the document without `digest`. */
export function digestOf(body: Record<string, unknown>): string {
  const hex = createHash('sha256')
    .update(canonicalJson(body as Parameters<typeof canonicalJson>[0]), 'utf8')
    .digest('hex')
  return `sha256:${hex}`
}

type Document = Record<string, unknown>

function documentOf(s: StateSnapshot): Document {
  const manifests: Record<string, unknown> = {}
  for (const name of [...s.manifests.keys()].sort(compareBytes)) {
    const m = s.manifests.get(name)!
    const entries: Record<string, string> = {}
    for (const key of [...m.entries.keys()].sort(compareBytes)) entries[key] = m.entries.get(key)!
    manifests[name] = {
      [METADATA_KEY]: {
        gitCommitHash: m.metadata.gitCommitHash,
        lastSyncedAt: m.metadata.lastSyncedAt
      },
      entries,
      secrets: [...m.secrets].sort(compareBytes)
    }
  }
  return {
    schema: SNAPSHOT_SCHEMA,
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    config: { path: s.config.path, environment: s.config.environment },
    commit: s.commit,
    createdAt: s.createdAt,
    writtenBy: s.writtenBy,
    version: s.version,
    manifests
  }
}
