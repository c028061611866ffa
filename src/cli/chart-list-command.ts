/**
 * `chart list [--check-latest]` (docs/compatibility.md#chart-list): each helmfile release's
 * chart, release, helmfile and pinned version, and with `--check-latest` the newest version its
 * repository or registry offers, in Tazuna's table (Go's text/tabwriter, src/go/tabwriter.ts).
 * No cluster is contacted.
 */
import type { ChartListItem } from '../engine/engine.js'
import { goQuote } from '../go/quote.js'
import { tabwriterText } from '../go/tabwriter.js'
import type { CliCommand } from './command.js'

/**
 * Tazuna's table: `-` for an empty chart, version or latest version, `(error)` for a latest
 * version that could not be asked, with a `warn:` line for stderr per such release.
 */
export function renderChartList(
  items: readonly ChartListItem[],
  checkedLatest: boolean
): { text: string; warnings: string[] } {
  const warnings: string[] = []
  const header = ['CHART', 'RELEASE', 'FILE', 'VERSION', ...(checkedLatest ? ['LATEST'] : [])]
  const rows = items.map((item) => {
    const cells = [item.chart || '-', item.release, item.file, item.version || '-']
    if (!checkedLatest) return cells
    const latest = item.latest ?? { version: '' }
    if ('error' in latest) {
      warnings.push(
        `warn: failed to resolve latest for release ${goQuote(item.release)}: ${latest.error}\n`
      )
      return [...cells, '(error)']
    }
    return [...cells, latest.version || '-']
  })
  const text = [header, ...rows].map((cells) => `${cells.join('\t')}\n`).join('')
  return { text: tabwriterText(text), warnings }
}

export const chartListCommand: CliCommand = {
  name: 'chart list',
  summary:
    'List the helm charts of the helmfile manifests with release, helmfile and pinned version (--check-latest: and the newest version their repository offers)',
  options: { 'check-latest': { type: 'boolean', default: false } },
  async run({ io, engine, options, args }) {
    if (args.length > 0) {
      throw new Error(`chart list takes no arguments (got ${JSON.stringify(args.join(' '))})`)
    }
    const checkLatest = options['check-latest'] === true
    const run = await engine.loadExpanded()
    const { text, warnings } = renderChartList(
      await engine.chartList(run, { checkLatest }),
      checkLatest
    )
    for (const warning of warnings) io.stderr(warning)
    io.stdout(text)
    return 0
  }
}
