/**
 * Checks of removed objects whose deletion takes data with it. A removed entry is deleted only
 * by an apply with prune, so the message says which: this run's prune, or a later one.
 */
import { parseStateKey } from '../state/key.js'
import { arrayAt, stringAt } from './fields.js'
import type { Finding, ObjectChange, RiskContext } from './model.js'

/** How a removal is deleted, for the message. */
function deletedBy(context: RiskContext): string {
  return context.prune === true ? 'prune deletes it' : 'an apply with prune deletes it'
}

/** PersistentVolumeClaim and PersistentVolume: the volume's data. */
export function volumeRemoval(change: ObjectChange, context: RiskContext): Finding[] {
  const what =
    change.ref.kind === 'PersistentVolume'
      ? 'with reclaim policy Delete its storage is deleted too'
      : 'its volume is released, and deleted with it under a Delete reclaim policy'
  return [{ path: '', message: `removed: ${deletedBy(context)}; ${what}` }]
}

/** Namespace: everything in it, counted from what State records there. */
export function namespaceRemoval(change: ObjectChange, context: RiskContext): Finding[] {
  const inside = (context.recorded ?? []).filter((key) => namespaceOf(key) === change.ref.name)
  const counted =
    context.recorded === undefined
      ? 'everything in it'
      : `everything in it, including the ${inside.length} object${inside.length === 1 ? '' : 's'} State records there`
  return [{ path: '', message: `removed: ${deletedBy(context)} and ${counted}` }]
}

/** CustomResourceDefinition: every custom object of its kind, cluster-wide. */
export function definitionRemoval(change: ObjectChange, context: RiskContext): Finding[] {
  // The name is <plural>.<group>; the kind is in the object (the base render), when known.
  const group = change.ref.name.slice(change.ref.name.indexOf('.') + 1)
  const kind = stringAt(change.before, ['spec', 'names', 'kind'])
  const what = kind === '' ? `objects of group ${group}` : `${kind} objects`
  const recorded = (context.recorded ?? []).filter((key) => {
    const k = safeKey(key)
    return k !== undefined && k.group === group && (kind === '' || k.kind === kind)
  })
  const counted = context.recorded === undefined ? '' : ` (State records ${recorded.length})`
  return [
    {
      path: '',
      message: `removed: ${deletedBy(context)} and with it every ${what} in the cluster${counted}`
    }
  ]
}

/** StatefulSet with volumeClaimTemplates: its Pods, and its claims when it deletes them. */
export function statefulSetRemoval(change: ObjectChange, context: RiskContext): Finding[] {
  const templates = arrayAt(change.before, ['spec', 'volumeClaimTemplates'])
  // Without the object (content diffs off) the templates are not known: say so rather than
  // stay silent about a StatefulSet.
  if (change.before !== undefined && templates.length === 0) return []
  const policy = stringAt(change.before, [
    'spec',
    'persistentVolumeClaimRetentionPolicy',
    'whenDeleted'
  ])
  const claims =
    policy === 'Delete'
      ? 'its claims are deleted with it (whenDeleted: Delete)'
      : 'its claims stay (whenDeleted: Retain) but no longer belong to anything'
  return [
    {
      path: 'spec.volumeClaimTemplates',
      message: `removed: ${deletedBy(context)} and its Pods; ${claims}`
    }
  ]
}

function safeKey(key: string): ReturnType<typeof parseStateKey> | undefined {
  try {
    return parseStateKey(key)
  } catch {
    return undefined
  }
}

function namespaceOf(key: string): string | undefined {
  return safeKey(key)?.namespace
}
