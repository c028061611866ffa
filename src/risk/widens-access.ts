/**
 * Checks of changes that give someone more than before: wildcard RBAC rules, cluster-admin
 * bindings, `system:` subjects and Pod templates that reach into the node. Each compares the
 * head with the before side, so only what is gained is flagged (an added object gains all).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { arrayAt, fieldAt, objectAt, stringAt } from './fields.js'
import type { Finding, ObjectChange } from './model.js'

const RULE_FIELDS = ['verbs', 'resources', 'apiGroups'] as const

/** Role and ClusterRole: a rule gaining `*` verbs, resources or API groups. */
export function wildcardRules(change: ObjectChange): Finding[] {
  const had = new Set(
    arrayAt(change.before, ['rules']).flatMap((rule) =>
      RULE_FIELDS.filter((f) => arrayAt(rule, [f]).includes('*'))
    )
  )
  return arrayAt(change.head, ['rules']).flatMap((rule, i) =>
    RULE_FIELDS.filter((f) => !had.has(f) && arrayAt(rule, [f]).includes('*')).map((f) => ({
      path: `rules[${i}].${f}`,
      message: `grants every ${f === 'verbs' ? 'verb' : f === 'resources' ? 'resource' : 'API group'} (*)`
    }))
  )
}

/** ClusterRoleBinding: newly bound to `cluster-admin`. */
export function clusterAdminBinding(change: ObjectChange): Finding[] {
  const admin = (obj: JsonObject | undefined): boolean =>
    stringAt(obj, ['roleRef', 'kind']) === 'ClusterRole' &&
    stringAt(obj, ['roleRef', 'name']) === 'cluster-admin'
  if (!admin(change.head) || admin(change.before)) return []
  return [{ path: 'roleRef', message: 'binds cluster-admin: full control of the whole cluster' }]
}

/** RoleBinding and ClusterRoleBinding: a new subject named `system:…`. */
export function systemSubjects(change: ObjectChange): Finding[] {
  const name = (s: JsonValue): string => stringAt(s, ['name'])
  const had = new Set(arrayAt(change.before, ['subjects']).map(name))
  return arrayAt(change.head, ['subjects']).flatMap((subject, i) => {
    const n = name(subject)
    if (!n.startsWith('system:') || had.has(n)) return []
    return [
      {
        path: `subjects[${i}].name`,
        message: `binds the role to ${n}, a built-in identity (every ${n.startsWith('system:serviceaccounts') || n === 'system:authenticated' || n === 'system:unauthenticated' ? 'member of that group' : 'use of that identity'} gets it)`
      }
    ]
  })
}

/** Where the Pod spec is in each kind with a Pod template. */
const POD_SPEC_PATHS: Record<string, readonly string[]> = {
  Pod: ['spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec']
}
const TEMPLATE_PATH = ['spec', 'template', 'spec'] as const

/** The dotted path of the Pod spec of an object of `kind`. */
export function podSpecPath(kind: string): readonly string[] {
  return POD_SPEC_PATHS[kind] ?? TEMPLATE_PATH
}

/** One privilege a Pod spec can hold: its path inside the spec and whether it is held. */
interface Privilege {
  path: string
  why: string
}

function privilegesOf(spec: JsonObject): Map<string, Privilege> {
  const held = new Map<string, Privilege>()
  const add = (path: string, why: string): void => void held.set(path, { path, why })
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'] as const) {
    if (spec[field] === true) add(field, `shares the node's ${field.slice(4)} namespace`)
  }
  for (const volume of arrayAt(spec, ['volumes'])) {
    if (isJsonObject(fieldAt(volume, ['hostPath']))) {
      add(
        `volumes[${stringAt(volume, ['name'])}].hostPath`,
        `mounts the node's ${stringAt(volume, ['hostPath', 'path']) || 'file system'}`
      )
    }
  }
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    for (const c of arrayAt(spec, [list])) {
      const at = `${list}[${stringAt(c, ['name'])}].securityContext`
      if (fieldAt(c, ['securityContext', 'privileged']) === true) {
        add(`${at}.privileged`, 'runs privileged: root on the node')
      }
      for (const cap of arrayAt(c, ['securityContext', 'capabilities', 'add'])) {
        if (typeof cap === 'string') add(`${at}.capabilities.add[${cap}]`, `adds capability ${cap}`)
      }
    }
  }
  return held
}

/** Kinds with a Pod template: a template gaining privileged, host namespaces, hostPath or capabilities. */
export function podPrivileges(change: ObjectChange): Finding[] {
  const path = podSpecPath(change.ref.kind)
  const had = privilegesOf(objectAt(change.before, path))
  const prefix = path.join('.')
  return [...privilegesOf(objectAt(change.head, path)).values()]
    .filter((p) => !had.has(p.path))
    .map((p) => ({ path: `${prefix}.${p.path}`, message: p.why }))
}
