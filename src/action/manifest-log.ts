/**
 * One collapsible log group per manifest while a layered apply runs. Manifests of a layer run
 * concurrently, so their lines interleave; each line is attributed to its manifest by the
 * names Tazuna's messages carry (`[type] name`, `manifest=name`, `manifest "name"`) and the
 * manifest's group is printed whole once it finished. Lines naming no manifest pass through.
 */
import { describeCounts } from '../report/markdown.js'
import { formatDuration } from '../report/markdown.js'
import type { ApplyOutcome, ManifestApply } from '../report/model.js'
import type { EngineLog, Runner } from './ports.js'

/** Routes engine log lines into per-manifest groups. */
export class ManifestLog implements EngineLog {
  private readonly buffers = new Map<string, string[]>()
  private readonly finished = new Set<string>()

  constructor(
    private readonly runner: Runner,
    manifests: readonly string[],
    private readonly redact: (text: string) => string
  ) {
    for (const name of manifests) this.buffers.set(name, [])
  }

  info(message: string): void {
    this.route(this.redact(message))
  }

  warn(message: string): void {
    this.route(`warning: ${this.redact(message)}`)
  }

  /** Prints the group of every manifest, in layer order, titled with its result. */
  finish(outcome: ApplyOutcome): void {
    outcome.layers.forEach((layer, index) => {
      for (const m of layer) {
        const lines = this.buffers.get(m.manifest) ?? []
        if (m.error !== undefined && !lines.some((l) => l.includes(m.error!))) {
          lines.push(`error: ${this.redact(m.error)}`)
        }
        this.runner.group(groupTitle(index, m), lines)
        this.finished.add(m.manifest)
      }
    })
  }

  private route(line: string): void {
    const name = manifestNamed(line, this.buffers)
    if (name === undefined || this.finished.has(name)) this.runner.info(line)
    else this.buffers.get(name)!.push(line)
  }
}

const patterns = [/^(?:warning: )?\[[^\]]*\] (\S+)/, /\bmanifest=(\S+)/, /\bmanifest "([^"]+)"/]

const manifestNamed = (line: string, known: ReadonlyMap<string, unknown>): string | undefined => {
  for (const pattern of patterns) {
    const name = pattern.exec(line)?.[1]
    if (name !== undefined && known.has(name)) return name
  }
  return undefined
}

const groupTitle = (layer: number, m: ManifestApply): string => {
  const detail =
    m.result === 'applied' || m.result === 'unchanged'
      ? `${describeCounts(m.counts)}, ${formatDuration(m.durationMs)}`
      : formatDuration(m.durationMs)
  return `layer ${layer + 1} · ${m.manifest}: ${m.result} (${detail})`
}
