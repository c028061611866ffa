/**
 * The review gate's verdict in words (README.md#gated-deploys): one headline and one line per
 * difference, the same in the log, the job summary, the pull request and the refusal. Hashes
 * are ContentHashes, shortened as the comment shows them.
 */
import type { EntryDifference, GateVerdict } from './diff-gate.js'
import { shortDigest } from '../state/diff-digest.js'

/** The verdict: a headline and its details (empty when the Diff is the reviewed one). */
export interface VerdictText {
  headline: string
  details: string[]
}

const short = (hash: string | undefined): string => (hash ?? '').slice(0, 12)

// `old → new` of an entry, `(none)` for the side an entry type has no hash on.
const transition = (h: { oldHash?: string; newHash?: string } | undefined): string =>
  `${short(h?.oldHash) || '(none)'} → ${short(h?.newHash) || '(none)'}`

/** The verdict as the log, the job summary and the pull request say it. */
export function describeVerdict(verdict: GateVerdict): VerdictText {
  const digest = `digest ${shortDigest(verdict.digest)}`
  if (verdict.reviewed) {
    return {
      headline: `Applies the Diff reviewed on ${verdict.found!.where} (${digest}).`,
      details: []
    }
  }
  if (verdict.missing !== undefined) {
    return { headline: `No reviewed Diff was found: ${verdict.missing}.`, details: [] }
  }
  const found = verdict.found!
  const details = [
    ...(verdict.staleHead
      ? [
          `the Diff on ${found.where} was computed for ${short(found.computedFor)}, but the ` +
            `pull request's last head is ${short(found.lastHead)}: commits pushed after its last ` +
            'Diff were not reviewed'
        ]
      : []),
    ...verdict.differences.map(describeDifference),
    ...verdict.unnamed.map(
      (m) =>
        `manifest "${m}": its Diff differs from the reviewed one by digest (the comment holds ` +
        'no entries for it to name)'
    ),
    ...verdict.failed.map(
      (m) => `manifest "${m}": did not render, so its Diff could not be compared`
    )
  ]
  return {
    headline:
      `The Diff to apply (${digest}) is not the one reviewed on ${found.where} ` +
      `(reviewed head ${short(found.computedFor)}, digest ${shortDigest(found.digests.digest)}).`,
    details
  }
}

/** One difference, naming manifest, state key and hashes. */
export function describeDifference(d: EntryDifference): string {
  const where = `manifest "${d.manifest}" ${d.key}`
  switch (d.change) {
    case 'added':
      return `added: ${where} (${d.type} ${transition(d.apply)}) was not in the reviewed Diff`
    case 'changed':
      return (
        `changed: ${where} (${d.type}): reviewed ${transition(d.reviewed)}, ` +
        `applying ${transition(d.apply)}`
      )
    case 'missing':
      return `missing: ${where} (${d.type} ${transition(d.reviewed)}) was reviewed but is not in the Diff to apply`
  }
}

/**
 * The refusal of `reviewed-diff: require` (or `--require-diff`): what differs and what to do;
 * `todo` replaces the pull-request advice.
 */
export function refusalMessage(
  verdict: GateVerdict,
  options: { todo?: string; what?: string } = {}
): string {
  const { headline, details } = describeVerdict(verdict)
  const todo =
    options.todo ??
    (verdict.missing !== undefined && verdict.pullRequest === undefined
      ? 'Deploy through a pull request whose Diff job commented, or set reviewed-diff to warn.'
      : `Re-run the Diff job of ${verdict.pullRequest === undefined ? 'the pull request' : `#${verdict.pullRequest}`}, ` +
        'review its comment, then re-run this job.')
  return [
    `refusing to apply (${options.what ?? 'reviewed-diff: require'}): ${headline}`,
    ...details.map((d) => `  - ${d}`),
    `Nothing was applied; State and the cluster are unchanged. ${todo}`
  ].join('\n')
}
