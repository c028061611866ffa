/**
 * The kube-context guard of `apply` (docs/compatibility.md#context-guard): `spec.context_matches`
 * (or, with `-e X`, `spec.environments.X.context_matches`) are Go regexps that must fully match the
 * kubeconfig's current context, any of them (`or`, default) or all of them (`and`). Checked before
 * any request reaches the cluster.
 */
import { goQuote } from '../go/quote.js'
import { goRegexpMatchesFully } from '../go/regexp.js'

/** The guard fields of tazuna.yaml `spec`. */
export interface ContextGuardSpec {
  context_matches: readonly string[]
  context_match_mode: string
  environments: Readonly<
    Record<string, { context_matches: readonly string[]; context_match_mode: string }>
  >
}

/** The patterns and mode in force for an environment (`''` = none given). */
export function resolveContextGuard(
  spec: ContextGuardSpec,
  environment: string
): { patterns: readonly string[]; mode: string } {
  const rootMode = spec.context_match_mode || 'or'
  const env = environment === '' ? undefined : spec.environments[environment]
  if (env === undefined) return { patterns: spec.context_matches, mode: rootMode }
  return { patterns: env.context_matches, mode: env.context_match_mode || rootMode }
}

/**
 * Tazuna's error when `currentContext` fails the guard, or undefined when it passes (always
 * when there are no patterns). Patterns were validated by `check`.
 */
export function contextGuardError(
  guard: { patterns: readonly string[]; mode: string },
  currentContext: string
): string | undefined {
  if (guard.patterns.length === 0) return undefined
  const failing = guard.patterns.filter((p) => !goRegexpMatchesFully(p, currentContext))
  const list = (patterns: readonly string[]): string => patterns.map(goQuote).join(', ')
  if (guard.mode === 'and') {
    if (failing.length === 0) return undefined
    return `current context ${goQuote(currentContext)} does not match context_matches patterns [${list(failing)}]`
  }
  if (failing.length < guard.patterns.length) return undefined
  return `current context ${goQuote(currentContext)} does not match any of context_matches patterns [${list(guard.patterns)}]`
}
