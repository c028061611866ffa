/**
 * `chart list [--check-latest]` (docs/compatibility.md#chart-list), as Tazuna's
 * `TazunaRunner.ChartList`: every release of every helmfile manifest (includes expanded, named
 * or not, no tag filter), listed 8 manifests at a time without downloading or rendering a
 * chart; with `checkLatest`, the newest version of each chart source, asked one source after
 * another and once per source.
 */
import path from 'node:path'
import { goDir, goJoin } from '../go/filepath.js'
import { ChartFetchError } from '../render/helmfile/chart-fetch.js'
import {
  latestChartVersion,
  latestSourceKey,
  latestSourceOf,
  type LatestSource
} from '../render/helmfile/chart-list.js'
import { mapInOrder } from '../render/helmfile/helmfile.js'
import { readHelmfileOf } from '../render/manifest.js'
import type { ConfigRun } from './load.js'
import type { EnginePorts, EngineSettings } from './ports.js'
import { renderContext } from './render.js'

/** Helmfile manifests read at the same time, as in Tazuna. */
const LIST_CONCURRENCY = 8

/** One row of `chart list`. */
export interface ChartListItem {
  manifest: string
  /** As the helmfile declares it: a local path, `<alias>/<chart>` or `oci://...`. */
  chart: string
  release: string
  /**
   * The helmfile's path as Tazuna prints it: the manifest's path joined to the directory of
   * `-f` as given (Go's filepath.Join), then the helmfile's name when the path is a directory.
   */
  file: string
  /** The release's `version`, as written. */
  version: string
  /** With checkLatest: the newest version ('' when there is none to ask), or why not. */
  latest?: { version: string } | { error: string }
}

/** Lists the charts of `run`'s helmfile manifests; throws what reading a helmfile throws. */
export async function listCharts(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts,
  options: { checkLatest: boolean; redact: (text: string) => string }
): Promise<ChartListItem[]> {
  const context = renderContext(run, settings, ports)
  const helmfiles = run.manifests.filter((m) => m.type === 'helmfile')
  const listed = await mapInOrder(helmfiles, LIST_CONCURRENCY, async (m) => {
    const { file, spec } = await readHelmfileOf(m, context)
    const shown = shownHelmfilePath(
      settings.file,
      m.path,
      path.resolve(run.config.dir, m.path),
      file
    )
    return spec.releases.map((release) => ({
      item: {
        manifest: m.name,
        chart: release.chart,
        release: release.name,
        file: shown,
        version: release.version
      } satisfies ChartListItem,
      source: latestSourceOf(release.chart, spec.repositories)
    }))
  })
  const rows = listed.flat()
  if (!options.checkLatest) return rows.map((r) => r.item)
  const asked = new Map<string, ChartListItem['latest']>()
  const items: ChartListItem[] = []
  for (const { item, source } of rows) {
    const key = latestSourceKey(source)
    let latest = key === '' ? undefined : asked.get(key)
    if (latest === undefined) {
      latest = await askLatest(ports, source, options.redact)
      if (key !== '') asked.set(key, latest)
    }
    items.push({ ...item, latest })
  }
  return items
}

async function askLatest(
  ports: EnginePorts,
  source: LatestSource,
  redact: (text: string) => string
): Promise<NonNullable<ChartListItem['latest']>> {
  try {
    return { version: await latestChartVersion(ports.http, source) }
  } catch (error) {
    if (error instanceof ChartFetchError) return { error: redact(error.message) }
    throw error
  }
}

/**
 * Tazuna prints `filepath.Join(filepath.Dir(-f), path)`, and below it the helmfile's name when
 * the path is a directory; `manifestPath` is where the path was read and `file` the helmfile.
 */
function shownHelmfilePath(
  configFlag: string,
  manifestPathAsWritten: string,
  manifestPath: string,
  file: string
): string {
  const shown = path.isAbsolute(manifestPathAsWritten)
    ? manifestPathAsWritten
    : goJoin(goDir(configFlag), manifestPathAsWritten)
  return file === manifestPath ? shown : goJoin(shown, path.basename(file))
}
