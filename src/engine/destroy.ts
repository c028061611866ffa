/**
 * The destroy step of the engine (docs/compatibility.md#destroy): the kube-context guard, the caller's
 * confirmation, then every selected manifest in declaration order (no dependsOn layers, not
 * reversed) rendered and its objects deleted in render order (CRDs first). State ConfigMaps are
 * left exactly as they are, as Tazuna leaves them.
 */
import { refOf } from '../apply/object-ref.js'
import { contextGuardError, resolveContextGuard } from '../apply/context-guard.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import type { Cluster, ObjectRef } from '../apply/ports.js'
import { buildFailure, ManifestError, messageOf } from '../apply/sync-manifest.js'
import type { Manifest } from '../config/schema.js'
import { ClusterError } from '../errors.js'
import { selectedByTags } from '../plan/tags.js'
import type { ConfigRun } from './load.js'
import type { EngineLog, EngineSettings } from './ports.js'

/** What a destroy needs from its caller. */
export interface DestroyRequest {
  /**
   * Asked after the context guard passed and before anything is deleted: the prompt and
   * `TAZUNA_DESTROY_EXECUTABLE` of the command line. False ends the destroy without a request.
   */
  confirm: () => Promise<boolean>
  log: EngineLog
}

/** `destroyed` lists the deleted objects (`Kind namespace/name`) per manifest. */
export type DestroyOutcome =
  | { result: 'declined' }
  | { result: 'destroyed'; manifests: { manifest: string; deleted: string[] }[] }

/** Destroys a loaded run; throws ClusterError when the context guard refuses. */
export async function destroyConfigRun(
  run: ConfigRun,
  request: DestroyRequest,
  deps: {
    settings: EngineSettings
    session: () => Promise<{ cluster: Pick<Cluster, 'delete'>; context: string }>
    build: (m: Manifest) => Promise<DesiredState>
  }
): Promise<DestroyOutcome> {
  const guard = resolveContextGuard(run.config.config.spec, deps.settings.environment)
  if (guard.patterns.length > 0) {
    const refused = contextGuardError(guard, (await deps.session()).context)
    if (refused !== undefined) throw new ClusterError(refused)
  }
  if (!(await request.confirm())) return { result: 'declined' }
  const manifests: { manifest: string; deleted: string[] }[] = []
  for (const m of run.manifests) {
    if (!selectedByTags(m.tags, deps.settings.tags)) {
      request.log.info(`skip manifest due to tags filter (manifest ${m.name})`)
      continue
    }
    request.log.info(`destroy with manager (manifest ${m.name}, type ${m.type}, path ${m.path})`)
    const desired = await deps.build(m).catch((error: unknown) => {
      throw buildFailure(m.name, error)
    })
    const deleted: string[] = []
    for (const object of desired.objects) {
      const ref = refOf(object)
      await (await deps.session()).cluster.delete(ref).catch((error: unknown) => {
        throw new ManifestError(m.name, messageOf(error), { cause: error })
      })
      deleted.push(describeRef(ref))
    }
    manifests.push({ manifest: m.name, deleted })
  }
  return { result: 'destroyed', manifests }
}

function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`
}
