/**
 * The risk pass (docs/risks.md): every rule of `./rules.ts` over every added, modified and
 * removed entry of a Diff, with both sides of its content diff. Pure and linear in the Diff:
 * each object is looked at by the few rules of its kind.
 */
import type { JsonObject } from '../go/yaml.js'
import type { DiffEntry } from '../state/diff.js'
import { parseStateKey, type StateKey } from '../state/key.js'
import { overlay, stringAt } from './fields.js'
import {
  riskKinds,
  type ObjectChange,
  type Risk,
  type RiskContext,
  type RiskKind
} from './model.js'
import { ruleApplies, riskRules } from './rules.js'
import { apiFindings, confirmsDeprecation, type ApiContext } from './apis.js'
import { isSecretKind, withoutQuotedValues } from '../objects/secret-values.js'

/** Objects by manifest, then state key (the content diff's renders). */
export type ObjectsByKey = ReadonlyMap<string, ReadonlyMap<string, JsonObject>>

/** What the risk pass reads. */
export interface RiskInput {
  manifests: readonly { manifest: string; entries: readonly DiffEntry[] }[]
  /** The base render or the live objects; empty when content diffs are off. */
  before: ObjectsByKey
  /** The head render (live mode: the server's dry run of it); empty when content diffs are off. */
  head: ObjectsByKey
  prune?: boolean
  /** Every key State records; needed only when {@link needsRecordedKeys} says so. */
  recorded?: readonly string[]
  /** The API server's refusal of an object's dry run (live mode), by manifest and key. */
  refusals?: ObjectsByKeyOf<string>
  /** The API server's warnings of an object's dry run (live mode), by manifest and key. */
  warnings?: ObjectsByKeyOf<readonly string[]>
  /** What the cluster serves, for the API checks of added and modified objects (./apis.ts). */
  apis?: ApiContext
  /** The schema check's findings (the API server's words), by manifest and state key. */
  schema?: ObjectsByKeyOf<readonly { path: string; message: string }[]>
}

/** A value by manifest, then state key. */
export type ObjectsByKeyOf<T> = ReadonlyMap<string, ReadonlyMap<string, T>>

/** The annotation that accepts named kinds of risk for one object. */
export const acceptRiskAnnotation = 'tazuna-action/accept-risk'

/** Every finding: by kind (in {@link riskKinds} order), then in the Diff's order. */
export function assessRisks(input: RiskInput): Risk[] {
  const context: RiskContext = {
    ...(input.prune === undefined ? {} : { prune: input.prune }),
    ...(input.recorded === undefined ? {} : { recorded: input.recorded }),
    autoscalers: autoscalersOf([input.before, input.head])
  }
  const risks = changesOf(input).flatMap((change) => objectRisks(input, change, context))
  const order = (k: RiskKind): number => riskKinds.indexOf(k)
  return risks
    .map((risk, index) => ({ risk, index }))
    .sort((a, b) => order(a.risk.kind) - order(b.risk.kind) || a.index - b.index)
    .map((r) => r.risk)
}

// One object's findings: the API and schema checks', the rules', and the server's warnings of
// its dry run that none of them accounts for.
function objectRisks(input: RiskInput, change: ObjectChange, context: RiskContext): Risk[] {
  const accepted = acceptedKinds(change.head ?? change.before)
  const refusal = input.refusals?.get(change.manifest)?.get(change.key)
  const warnings = dryRunWarnings(input, change)
  const confirmed = new Set<string>()
  const risk = (
    kind: RiskKind,
    f: { path: string; message: string },
    said: string[] = []
  ): Risk => {
    for (const w of said) confirmed.add(w)
    return {
      kind,
      manifest: change.manifest,
      key: change.key,
      path: f.path,
      message: f.message,
      ...(accepted.has(kind) ? { accepted: true } : {}),
      ...(refusal !== undefined && refusedKinds.has(kind) ? { server: refusal } : {}),
      ...(said.length === 0 ? {} : { serverWarnings: said })
    }
  }
  const apis =
    input.apis === undefined || change.type === 'removed'
      ? []
      : apiFindings(change.ref, input.apis).map((f) => {
          const expected = f.serverWarning
          const said =
            expected === undefined ? [] : warnings.filter((w) => confirmsDeprecation(w, expected))
          return risk(f.kind, f, said)
        })
  const schema =
    change.type === 'removed'
      ? []
      : (input.schema?.get(change.manifest)?.get(change.key) ?? []).map((f) =>
          risk('rejected-by-schema', {
            path: f.path.replace(/^\./, ''),
            message: isSecretKind(apiVersionOf(change.ref))
              ? withoutQuotedValues(f.message)
              : f.message
          })
        )
  const rules = riskRules
    .filter((rule) => ruleApplies(rule, change))
    .flatMap((rule) => rule.check(change, context).map((f) => risk(rule.kind, f)))
  // A warning no finding of the object accounts for is a finding of its own.
  const unconfirmed = warnings
    .filter((w) => !confirmed.has(w))
    .map((w) => risk('server-warning', { path: '', message: w }))
  return [...apis, ...schema, ...rules, ...unconfirmed]
}

/**
 * The kinds of finding a refused dry run confirms: the server refuses the change
 * (`will-fail`) or the object (`rejected-by-schema`: with `fieldValidation=Strict` an
 * undeclared field fails the dry run as it fails the apply).
 */
const refusedKinds: ReadonlySet<RiskKind> = new Set(['will-fail', 'rejected-by-schema'])

// The warnings of the object's dry run; a removed object had none.
function dryRunWarnings(input: RiskInput, change: ObjectChange): readonly string[] {
  if (change.type === 'removed') return []
  return input.warnings?.get(change.manifest)?.get(change.key) ?? []
}

/** True when a rule would count what State records: a Namespace or a CRD is removed. */
export function needsRecordedKeys(
  manifests: readonly { entries: readonly DiffEntry[] }[]
): boolean {
  return manifests.some((m) =>
    m.entries.some((e) => {
      if (e.type !== 'removed') return false
      const k = keyOf(e.key)
      return (
        k !== undefined &&
        ((k.group === '' && k.kind === 'Namespace') ||
          (k.group === 'apiextensions.k8s.io' && k.kind === 'CustomResourceDefinition'))
      )
    })
  )
}

function changesOf(input: RiskInput): ObjectChange[] {
  return input.manifests.flatMap((m) =>
    m.entries.flatMap((entry): ObjectChange[] => {
      if (entry.type === 'always-sync') return []
      const ref = keyOf(entry.key)
      if (ref === undefined) return []
      const before = input.before.get(m.manifest)?.get(entry.key)
      const rendered =
        entry.type === 'removed' ? undefined : input.head.get(m.manifest)?.get(entry.key)
      // A refused dry run leaves the render as the head: lay it over the live object, so that
      // server defaults the render leaves out are not taken for changes.
      const refused = input.refusals?.get(m.manifest)?.has(entry.key) === true
      const head =
        refused && before !== undefined && rendered !== undefined
          ? overlay(before, rendered)
          : rendered
      return [
        {
          manifest: m.manifest,
          key: entry.key,
          ref,
          type: entry.type,
          ...(before === undefined || entry.type === 'added' ? {} : { before }),
          ...(head === undefined ? {} : { head })
        }
      ]
    })
  )
}

/** The kinds an object's `tazuna-action/accept-risk` annotation names (comma-separated). */
export function acceptedKinds(obj: JsonObject | undefined): Set<RiskKind> {
  const value = stringAt(obj, ['metadata', 'annotations', acceptRiskAnnotation])
  const named = value.split(',').map((s) => s.trim())
  return new Set(riskKinds.filter((k) => named.includes(k)))
}

function autoscalersOf(sides: readonly ObjectsByKey[]): JsonObject[] {
  return sides.flatMap((side) =>
    [...side.values()].flatMap((objects) =>
      [...objects.values()].filter(
        (o) =>
          o.kind === 'HorizontalPodAutoscaler' &&
          typeof o.apiVersion === 'string' &&
          o.apiVersion.startsWith('autoscaling/')
      )
    )
  )
}

function keyOf(key: string): StateKey | undefined {
  try {
    return parseStateKey(key)
  } catch {
    return undefined
  }
}

const HEADLINE: Record<RiskKind, (n: number) => string> = {
  'will-fail': (n) => `${n} change${n === 1 ? '' : 's'} will fail on apply`,
  'rejected-by-schema': (n) =>
    `${n} field${n === 1 ? ' is' : 's are'} refused by the cluster's schema`,
  'destroys-data': (n) => `${n} delete${n === 1 ? 's' : ''} data`,
  'widens-access': (n) => `${n} widen${n === 1 ? 's' : ''} access`,
  'fights-controller': (n) => `${n} fight${n === 1 ? 's' : ''} another controller`,
  'deprecated-api': (n) => `${n} use${n === 1 ? 's' : ''} a deprecated API`,
  'server-warning': (n) => `${n} warning${n === 1 ? '' : 's'} from the API server's dry run`
}

/**
 * One line counting the findings by kind, as "2 changes will fail on apply, 1 deletes data";
 * accepted findings are counted apart ("(1 accepted)"). `''` when there are none.
 */
export function describeRisks(risks: readonly Risk[]): string {
  const parts = riskKinds.flatMap((kind) => {
    const of = risks.filter((r) => r.kind === kind)
    if (of.length === 0) return []
    const accepted = of.filter((r) => r.accepted === true).length
    return [`${HEADLINE[kind](of.length)}${accepted === 0 ? '' : ` (${accepted} accepted)`}`]
  })
  return parts.join(', ')
}

/** Findings of `kinds` that no annotation accepted: what `fail-on-risk` fails on. */
export function failingRisks(risks: readonly Risk[], kinds: readonly RiskKind[]): Risk[] {
  return risks.filter((r) => kinds.includes(r.kind) && r.accepted !== true)
}

/** The apiVersion and kind of a state key. */
function apiVersionOf(ref: StateKey): { apiVersion: string; kind: string } {
  return {
    apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`,
    kind: ref.kind
  }
}
