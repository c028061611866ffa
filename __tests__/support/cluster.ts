// Access to the test cluster the integration project's global setup starts: kubeconfigs and
// sessions (admin and read-only reader), unique names, and a tiny "renderer" that turns
// inline objects into the DesiredState the apply core consumes (real hashing and keys from
// src/state).
import { randomBytes } from 'node:crypto'
import { openKubeSession, type KubeSession } from '../../src/adapters/kube/session.js'
import type { DesiredState, ManifestUnit } from '../../src/apply/manifest-unit.js'
import type { ApplyLog } from '../../src/apply/ports.js'
import { computeContentHash } from '../../src/state/hash.js'
import { formatStateKey, stateKeyOf } from '../../src/state/key.js'
import type { JsonObject } from '../../src/go/yaml.js'

/** A lowercase DNS-label-safe unique name: `<prefix>-<8 hex>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`
}

function kubeconfigFromEnv(variable: string): string {
  const file = process.env[variable]
  if (!file) throw new Error(`${variable} is not set: run under the jest integration project`)
  return file
}

/** The cluster admin's kubeconfig file (system:masters). */
export function adminKubeconfig(): string {
  return kubeconfigFromEnv('TAZUNA_TEST_ADMIN_KUBECONFIG')
}

/** A session as the cluster admin (system:masters). */
export async function adminSession(): Promise<KubeSession> {
  return await openKubeSession({ env: { KUBECONFIG: adminKubeconfig() } })
}

/** A session as the read-only reader (discovery + read ConfigMaps in `tazuna`). */
export async function readerSession(): Promise<KubeSession> {
  return await openKubeSession({
    env: { KUBECONFIG: kubeconfigFromEnv('TAZUNA_TEST_READER_KUBECONFIG') }
  })
}

/** Collects log lines for assertions. */
export function memoryLog(): ApplyLog & { lines: string[] } {
  const lines: string[] = []
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) }
}

/** A manifest unit for the tests (kustomize-like, no waits). */
export function unit(name: string, extra: Partial<ManifestUnit> = {}): ManifestUnit {
  return { name, type: 'kustomize', ...extra }
}

/** DesiredState of `objects` for manifest `name`, hashed and keyed like the real build. */
export function desiredOf(
  name: string,
  objects: JsonObject[],
  alwaysSync: string[] = []
): DesiredState {
  const entries = new Map<string, string>()
  for (const o of objects) entries.set(formatStateKey(stateKeyOf(name, o)), computeContentHash(o))
  return { objects, entries, alwaysSync: new Set(alwaysSync) }
}

/** A Namespace object. */
export function namespace(name: string): JsonObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }
}

/** A ConfigMap object with the given data. */
export function configMap(ns: string, name: string, data: Record<string, string>): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data }
}
