/**
 * `state diff` and `state list` (docs/compatibility.md#state-diff-text): read-only views of
 * the recorded State, with Tazuna's exact text on stdout. Like Tazuna they expand includes but
 * validate nothing else and ignore `--tags`; exit code 0 whether or not there are changes.
 * `state diff --content[=base|live]` (ours, docs/compatibility.md#content-diff-command-line)
 * prints the risks (docs/risks.md) and the content diffs the pull request comment shows after
 * the unchanged table.
 */
import { diffWithContent, type BeforeSide } from '../engine/content-diff.js'
import { renderReviewedFile } from '../report/reviewed-file.js'
import { InputError } from '../errors.js'
import { renderDiffText, renderStateListText } from '../state/text.js'
import { stderrLog, type CliCommand, type CommandContext } from './command.js'
import { paletteFor, renderContentText, renderRisksText } from './diff-text.js'
import { diffAgainstStateFile } from './snapshot-commands.js'

/**
 * `tazuna-action state diff [--content[=base|live]] [--base <ref>]`, or
 * `state diff --state-file F` against a State snapshot (src/cli/snapshot-commands.ts).
 */
export const stateDiffCommand: CliCommand = {
  name: 'state diff',
  summary:
    "Diff each manifest's rendered objects against its recorded State (read-only; --content[=base|live] [--base ref]: what changes inside each object; --state-file F: against a State snapshot, without the cluster)",
  options: {
    content: { type: 'string' },
    base: { type: 'string' },
    json: { type: 'boolean' },
    'state-file': { type: 'string' }
  },
  bareValues: { content: 'base' },
  async run(context) {
    const { io, engine } = context
    const stateFile = context.options['state-file']
    if (typeof stateFile === 'string') return diffAgainstStateFile(context, stateFile)
    if (context.options.json === true) return writeReviewedDiff(context)
    const before = await beforeSideOf(context)
    const run = await engine.loadExpanded()
    if (before === undefined) {
      io.stdout(renderDiffText(await engine.diff(run)))
      return 0
    }
    const { manifests, content, risks } = await diffWithContent(engine, run, {
      before: before.side,
      // Timings are for the job summary; the command line does not show them.
      now: () => 0,
      notice: (message) => stderrLog(io).warn(message),
      fingerprintKey: context.fingerprintKey
    })
    io.stdout(renderDiffText(manifests))
    io.stdout(renderRisksText(risks, paletteFor(io)))
    if (content !== undefined) io.stdout(renderContentText(content, before.against, paletteFor(io)))
    return 0
  }
}

// `state diff --json`: the Diff with its digests, for `apply --sync --require-diff`
// (README.md#gated-deploys).
async function writeReviewedDiff(context: CommandContext): Promise<number> {
  const { io, engine, options } = context
  if (options.content !== undefined) throw new InputError('--json does not go with --content')
  const run = await engine.loadExpanded()
  const diff = await engine.diff(run)
  io.stdout(renderReviewedFile(diff, await context.gitCommitOf(run.config.dir)))
  return 0
}

// The before side the flags ask for; the base is resolved first, so an unknown ref fails before
// anything renders.
async function beforeSideOf({
  options,
  args,
  baseCommit
}: CommandContext): Promise<{ side: BeforeSide; against: string } | undefined> {
  const content = options.content
  // `--content live` is `--content=base` and an argument "live" (pflag's NoOptDefVal reads it
  // so too): say how to write it rather than ignore the word.
  if (content !== undefined && args.length > 0) {
    throw new InputError(
      `unexpected argument ${JSON.stringify(args[0])} (write the value as --content=${args[0]})`
    )
  }
  const ref = typeof options.base === 'string' ? options.base : undefined
  if (content === undefined) {
    if (ref !== undefined) throw new InputError('--base needs --content (or --content=base)')
    return undefined
  }
  if (content === 'live') {
    if (ref !== undefined) throw new InputError('--base applies to --content=base, not live')
    return {
      side: { source: 'live' },
      against: 'live objects (server-side dry run of the working tree render)'
    }
  }
  if (content !== 'base') {
    throw new InputError(`--content must be base or live, got ${JSON.stringify(content)}`)
  }
  const base = await baseCommit(ref)
  return {
    side: {
      source: 'base',
      baseSha: base.sha,
      render: (headRendered) => base.render(headRendered)
    },
    against: `base ${base.sha.slice(0, 12)} (${base.describe})`
  }
}

/** `tazuna-action state list`: every manifest's recorded State. */
export const stateListCommand: CliCommand = {
  name: 'state list',
  summary: "List each manifest's recorded State (read-only)",
  async run({ io, engine }) {
    const run = await engine.loadExpanded()
    io.stdout(renderStateListText(await engine.listState(run)))
    return 0
  }
}
