/**
 * The command line's reviewed Diff (README.md#gated-deploys): `state diff --json` writes the
 * Diff with its digests and every entry; `apply --sync --require-diff FILE` reads it back and
 * refuses, as `reviewed-diff: require` does, when the Diff to apply differs.
 */
import { InputError } from '../errors.js'
import { diffDigests, type DigestInput } from '../state/diff-digest.js'
import type { ReviewedDiff } from './diff-gate.js'
import { parseMarker } from './marker.js'
import { entriesOf, entriesValue } from './reviewed-entries.js'

const kind = 'tazuna-action/reviewed-diff'

/** The file's JSON: the commit, the digests and every entry (no cap: a file has room). */
export function renderReviewedFile(diff: readonly DigestInput[], sha: string): string {
  const digests = diffDigests(diff)
  const entries = entriesValue(diff, Infinity)
  const manifests = diff.map((m) => ({ manifest: m.manifest, entries: m.entries }))
  return `${JSON.stringify({ kind, sha, digest: digests.digest, digests: digests.manifests, manifests, entries }, null, 2)}\n`
}

/**
 * The reviewed Diff a file holds; `head` is the commit being applied ('' outside git). Throws
 * InputError naming the file when it is not such a file.
 */
export function parseReviewedFile(text: string, file: string, head: string): ReviewedDiff {
  const bad = (why: string) =>
    new InputError(`--require-diff ${file}: ${why} (write it with \`state diff --json\`)`)
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw bad('not JSON')
  }
  if (value?.kind !== kind) throw bad(`not a reviewed Diff (kind is not "${kind}")`)
  const sha = typeof value.sha === 'string' ? value.sha : ''
  // The digests and entries are checked by the same parsers as the comment's marker and line.
  const marker = parseMarker(
    `<!-- tazuna-action:${JSON.stringify({ tool: 'tazuna-action', schema: 2, config: '', environment: '', sha, diff: { digest: value.digest, manifests: value.digests } })} -->`
  )
  const entries = entriesOf(value.entries)
  if (marker?.diff === undefined || entries === undefined)
    throw bad('its digests or entries are malformed')
  return {
    where: file,
    computedFor: sha,
    lastHead: head === '' || sha === '' ? sha : head,
    digests: marker.diff,
    entries
  }
}
