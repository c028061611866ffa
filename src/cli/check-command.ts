/**
 * `tazuna-action check`: validate tazuna.yaml without a cluster, every problem at once. With
 * `--cluster`, also render every manifest and run the review's API and schema checks
 * (docs/risks.md#schema-findings) on every object against the cluster, read-only, without a
 * Diff: for pre-commit hooks and other CI systems. Exit code 2 when a finding would fail the
 * apply (`will-fail`, `rejected-by-schema`) and the object does not accept it.
 */
import { checkFailedHeadline } from '../config/check.js'
import { formatProblems } from '../errors.js'
import type { ManifestDiff } from '../report/model.js'
import { assessRisks } from '../risk/assess.js'
import type { Risk } from '../risk/model.js'
import { stderrLog, type CliCommand } from './command.js'
import { paletteFor, renderRisksText } from './diff-text.js'

/** The kinds the API and schema checks find. */
const checkedKinds = new Set<Risk['kind']>(['will-fail', 'rejected-by-schema', 'deprecated-api'])
/** The kinds of those that fail an apply. */
const failingKinds = new Set<Risk['kind']>(['will-fail', 'rejected-by-schema'])

/** `tazuna-action check`. */
export const checkCommand: CliCommand = {
  name: 'check',
  summary:
    "Validate tazuna.yaml (template, schema, includes, names, dependsOn); no cluster (--cluster: also check every rendered object against the cluster's APIs and schema, read-only; exit 2 on a finding that would fail)",
  options: { cluster: { type: 'boolean' } },
  async run({ flags, io, engine, options }) {
    const { problems } = await engine.check()
    if (problems.length > 0) {
      const lines = [checkFailedHeadline(flags.filePath), ...formatProblems(problems)]
      io.stderr(`error: ${lines.join('\n')}\n`)
      return 1
    }
    if (options.cluster !== true) {
      io.stdout('ok\n')
      return 0
    }
    const run = await engine.loadExpanded()
    const head = await engine.renderObjects(run)
    // Every object as if it were added: what an apply of the working tree sends.
    const manifests: ManifestDiff[] = run.manifests.map((m) => ({
      manifest: m.name,
      type: m.type,
      entries: [...(head.get(m.name)?.keys() ?? [])].map((key) => ({ type: 'added', key }))
    }))
    const { apis, schema, notices = [] } = await engine.reviewApis(run, manifests)
    for (const notice of notices) stderrLog(io).warn(engine.redact(notice))
    const risks = assessRisks({
      manifests,
      before: new Map(),
      head,
      ...(apis === undefined ? {} : { apis }),
      ...(schema === undefined ? {} : { schema })
    }).filter((r) => checkedKinds.has(r.kind))
    if (risks.length === 0) {
      io.stdout('ok\n')
      return 0
    }
    io.stdout(engine.redact(renderRisksText(risks, paletteFor(io))))
    return risks.some((r) => failingKinds.has(r.kind) && r.accepted !== true) ? 2 : 0
  }
}
