/**
 * The hidden first line of the sticky PR comment. It identifies the comment by configuration
 * and environment (one comment per pair) and records which commit it describes and, since
 * schema 2, the digests of the Diff computed for that commit (src/state/diff-digest.ts), which
 * the merge run compares with the Diff it applies (README.md#gated-deploys). A user can
 * paste the same line into their own comment, so finding the comment also checks its author
 * (src/adapters/github/comments.ts); the marker alone is never trusted.
 */
import type { DiffDigests } from '../state/diff-digest.js'
import type { ReportTarget } from './model.js'

/** Bumped when the marker's meaning changes; older markers are still matched by target. */
export const markerSchema = 2

/**
 * Per-manifest digests kept in the marker up to this many manifests with entries; past it the
 * whole Diff's digest alone, so the hidden first line stays a few kilobytes at most.
 */
export const markerManifestCap = 40
const tool = 'tazuna-action'
const prefix = `<!-- ${tool}:`

/** What the marker records. */
export interface Marker {
  tool: string
  schema: number
  config: string
  environment: string
  /** Input `target`, when set: one comment per config, environment and target. */
  target?: string
  sha: string
  /** The Diff computed for `sha` (schema 2); absent when no Diff was computed (config problems). */
  diff?: MarkerDiff
  /**
   * Set on a comment mode publish made from a pull request's own report (a fork's): it records no
   * Diff, since that run could have altered it (docs/fork-pull-requests.md#the-merge-gate).
   */
  published?: true
}

/** The reviewed Diff's digests as the marker keeps them. */
export interface MarkerDiff {
  digest: string
  /** Absent past {@link markerManifestCap} manifests with entries. */
  manifests?: Record<string, string>
}

/**
 * The marker line for a report target and, when one was computed, its Diff's digests; a
 * published comment's marker says so and never carries digests.
 */
export function renderMarker(target: ReportTarget, digests?: DiffDigests | 'published'): string {
  const marker: Marker = {
    tool,
    schema: markerSchema,
    config: target.config,
    environment: target.environment,
    ...(target.target ? { target: target.target } : {}),
    sha: target.sha,
    ...(digests === 'published'
      ? { published: true }
      : digests === undefined
        ? {}
        : { diff: markerDiffOf(digests) })
  }
  // `<`, `>` and `&` escaped so no value can close the HTML comment early (`-->`).
  const json = JSON.stringify(marker)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
  return `${prefix}${json} -->`
}

/** The marker on the first line of a comment body, if it is one of ours and well-formed. */
export function parseMarker(body: string): Marker | undefined {
  const firstLine = body.split('\n', 1)[0]!.trimEnd()
  if (!firstLine.startsWith(prefix) || !firstLine.endsWith(' -->')) return undefined
  try {
    const value: unknown = JSON.parse(firstLine.slice(prefix.length, -' -->'.length))
    return isMarker(value) ? value : undefined
  } catch {
    return undefined
  }
}

function markerDiffOf(digests: DiffDigests): MarkerDiff {
  const fits = Object.keys(digests.manifests).length <= markerManifestCap
  return { digest: digests.digest, ...(fits ? { manifests: digests.manifests } : {}) }
}

/** True when the marker belongs to the same configuration, environment and target. */
export function sameTarget(
  marker: Marker,
  target: Pick<ReportTarget, 'config' | 'environment' | 'target'>
): boolean {
  return (
    marker.config === target.config &&
    marker.environment === target.environment &&
    (marker.target ?? '') === (target.target ?? '')
  )
}

const isMarker = (value: unknown): value is Marker => {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    v.tool === tool &&
    typeof v.schema === 'number' &&
    typeof v.config === 'string' &&
    typeof v.environment === 'string' &&
    (v.target === undefined || typeof v.target === 'string') &&
    typeof v.sha === 'string' &&
    (v.diff === undefined || isMarkerDiff(v.diff)) &&
    (v.published === undefined || v.published === true)
  )
}

const isHex = (value: unknown): boolean => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)

const isMarkerDiff = (value: unknown): value is MarkerDiff => {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  if (!isHex(v.digest)) return false
  if (v.manifests === undefined) return true
  return (
    typeof v.manifests === 'object' &&
    v.manifests !== null &&
    !Array.isArray(v.manifests) &&
    Object.values(v.manifests).every(isHex)
  )
}
