/**
 * What the risk pass finds (docs/risks.md): a change a reviewer must not miss, because the API
 * server will refuse it, it deletes data, it widens access, or another controller owns the
 * field; an API version on its way out; and what the API server's own dry run warns of. Plain data; the rules are in `./rules.ts`, the API
 * checks in `./apis.ts`.
 */
import type { JsonObject } from '../go/yaml.js'
import type { DiffType } from '../state/diff.js'
import type { StateKey } from '../state/key.js'

/** The kinds of risk, in the order the reports list them. */
export const riskKinds = [
  'will-fail',
  'rejected-by-schema',
  'destroys-data',
  'widens-access',
  'fights-controller',
  'deprecated-api',
  'server-warning'
] as const

/** One kind of risk. */
export type RiskKind = (typeof riskKinds)[number]

/** One finding: the object, the field and why, in one line. */
export interface Risk {
  kind: RiskKind
  manifest: string
  /** The state key of the object. */
  key: string
  /** Where in the object, as `spec.selector` or `rules[0].verbs`; `''` for the whole object. */
  path: string
  message: string
  /** Silenced by the object's `tazuna-action/accept-risk` annotation: shown, never failing. */
  accepted?: boolean
  /**
   * The API server's own refusal, when live mode's dry run reported one for this object (on its
   * `will-fail` and `rejected-by-schema` findings).
   */
  server?: string
  /**
   * The warnings of live mode's dry run of this object that confirm this finding, in the
   * server's words (a `deprecated-api` finding's deprecation warning).
   */
  serverWarnings?: string[]
}

/** One changed object as the rules see it: its Diff entry and both sides of its content diff. */
export interface ObjectChange {
  manifest: string
  key: string
  ref: StateKey
  type: Exclude<DiffType, 'always-sync'>
  /** The base render or the live object; absent for an added object or without content. */
  before?: JsonObject
  /** The head render (or the server's dry run of it); absent for a removed object. */
  head?: JsonObject
}

/** What a rule may know beyond the one object. */
export interface RiskContext {
  /** Whether removed entries are deleted by this run (input `prune`); unknown on the CLI. */
  prune?: boolean
  /** Every state key State records, when the pass needed them (Namespace and CRD removals). */
  recorded?: readonly string[]
  /** HorizontalPodAutoscalers of the Diff's renders, before and head. */
  autoscalers: readonly JsonObject[]
}

/** A rule's finding before the pass adds the object. */
export interface Finding {
  path: string
  message: string
}

/**
 * One rule of the table: which objects it looks at, which kind of risk it finds and the
 * Kubernetes API behaviour behind it (`reference`, in our words).
 */
export interface RiskRule {
  id: string
  kind: RiskKind
  /** `group/Kind` (`/Kind` for the core group) the rule applies to; empty: every kind. */
  kinds: readonly string[]
  /** The Diff entry types it applies to. */
  on: readonly ObjectChange['type'][]
  reference: string
  check(change: ObjectChange, context: RiskContext): Finding[]
}

/** Parses `fail-on-risk`-style lists; throws naming the unknown kind. */
export function parseRiskKinds(value: string, what: string): RiskKind[] {
  const kinds = value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
  for (const kind of kinds) {
    if (!(riskKinds as readonly string[]).includes(kind)) {
      throw new Error(
        `${what} must list risk kinds among ${riskKinds.join(', ')}, got ${JSON.stringify(kind)}`
      )
    }
  }
  return kinds as RiskKind[]
}
