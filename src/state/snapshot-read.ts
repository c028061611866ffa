/**
 * Reading a State snapshot (docs/state-snapshots.md) for a Diff without cluster access: all or
 * nothing. A document that does not parse, is not a snapshot, has another schema version, a
 * digest that does not match, a field of the wrong shape, or belongs to another configuration or
 * environment is refused with an error naming the file and the problem; never half-used.
 */
import {
  digestOf,
  isSecretKey,
  SNAPSHOT_SCHEMA,
  SNAPSHOT_SCHEMA_VERSION,
  SnapshotError,
  type SnapshotConfig,
  type SnapshotManifest,
  type StateSnapshot
} from './snapshot.js'
import { METADATA_KEY } from './state.js'

const FIELDS = [
  'schema',
  'schemaVersion',
  'config',
  'commit',
  'createdAt',
  'writtenBy',
  'version',
  'manifests',
  'digest'
]

/**
 * Parses and verifies a snapshot's text, `file` naming it in errors, for the configuration
 * `expected`; throws SnapshotError on any problem.
 */
export function readSnapshot(text: string, file: string, expected: SnapshotConfig): StateSnapshot {
  const fail = (problem: string): never => {
    throw new SnapshotError(`State snapshot ${file}: ${problem}`)
  }
  const doc = parseDocument(text, fail)
  if (doc.schema !== SNAPSHOT_SCHEMA) {
    fail(`not a State snapshot (field "schema" is not ${JSON.stringify(SNAPSHOT_SCHEMA)})`)
  }
  if (doc.schemaVersion !== SNAPSHOT_SCHEMA_VERSION) {
    fail(
      `schema version ${JSON.stringify(doc.schemaVersion)}; this program reads version ${SNAPSHOT_SCHEMA_VERSION}`
    )
  }
  const { digest, ...body } = doc
  if (typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest)) {
    fail('field "digest" is missing or not sha256:<64 hex digits>')
  }
  if (digest !== digestOf(body)) {
    fail('its digest does not match its content (the file was changed or cut short)')
  }
  const unknown = Object.keys(doc).filter((k) => !FIELDS.includes(k))
  if (unknown.length > 0) fail(`unknown field ${JSON.stringify(unknown[0])}`)
  const snapshot = snapshotFromDocument(doc, fail)
  const { path, environment } = snapshot.config
  if (path !== expected.path || environment !== expected.environment) {
    fail(
      `it belongs to ${describeConfig(snapshot.config)}, not to ${describeConfig(expected)} of this run`
    )
  }
  return snapshot
}

function describeConfig(c: SnapshotConfig): string {
  return `config ${JSON.stringify(c.path)}, environment ${JSON.stringify(c.environment)}`
}

type Fail = (problem: string) => never

function parseDocument(text: string, fail: Fail): Record<string, unknown> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (error) {
    return fail(`not valid JSON (${(error as Error).message})`)
  }
  return isObject(doc) ? doc : fail('not a JSON object')
}

function snapshotFromDocument(doc: Record<string, unknown>, fail: Fail): StateSnapshot {
  const config = isObject(doc.config) ? doc.config : fail('field "config" is not an object')
  const manifests = isObject(doc.manifests)
    ? doc.manifests
    : fail('field "manifests" is not an object')
  return {
    config: {
      path: stringField(config, 'path', 'config', fail),
      environment: stringField(config, 'environment', 'config', fail)
    },
    commit: stringField(doc, 'commit', '', fail),
    createdAt: stringField(doc, 'createdAt', '', fail),
    writtenBy: stringField(doc, 'writtenBy', '', fail),
    version: stringField(doc, 'version', '', fail),
    manifests: new Map(
      Object.entries(manifests).map(([name, value]) => [name, manifestOf(name, value, fail)])
    )
  }
}

function manifestOf(name: string, value: unknown, fail: Fail): SnapshotManifest {
  const where = `manifests.${name}`
  const m = isObject(value) ? value : fail(`field "${where}" is not an object`)
  const meta = isObject(m[METADATA_KEY])
    ? m[METADATA_KEY]
    : fail(`field "${where}.${METADATA_KEY}" is not an object`)
  const entries = isObject(m.entries)
    ? m.entries
    : fail(`field "${where}.entries" is not an object`)
  const secrets = Array.isArray(m.secrets)
    ? (m.secrets as unknown[])
    : fail(`field "${where}.secrets" is not an array`)
  const hashes = new Map<string, string>()
  for (const [key, hash] of Object.entries(entries)) {
    if (typeof hash !== 'string') fail(`entry ${JSON.stringify(key)} of ${where} is not a string`)
    if (isSecretKey(key)) fail(`entry ${JSON.stringify(key)} of ${where} is a Secret with a hash`)
    hashes.set(key, hash)
  }
  for (const key of secrets) {
    if (typeof key !== 'string' || !isSecretKey(key)) {
      fail(`${where}.secrets holds ${JSON.stringify(key)}, which is not a Secret's state key`)
    }
  }
  return {
    metadata: {
      gitCommitHash: stringField(meta, 'gitCommitHash', `${where}.${METADATA_KEY}`, fail),
      lastSyncedAt: stringField(meta, 'lastSyncedAt', `${where}.${METADATA_KEY}`, fail)
    },
    entries: hashes,
    secrets: secrets as string[]
  }
}

/** `o[key]` as a string; `parent` is the field path of `o` in errors ("" at the top). */
function stringField(o: Record<string, unknown>, key: string, parent: string, fail: Fail): string {
  const value = o[key]
  if (typeof value === 'string') return value
  return fail(`field "${parent === '' ? key : `${parent}.${key}`}" is missing or not a string`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
