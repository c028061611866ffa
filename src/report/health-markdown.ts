/**
 * Health in the apply's published texts (docs/health.md#reporting): the glance line of the
 * pull request's Applied section ("✅ Applied and healthy in 48 s" / "❌ Applied, 1 of 12
 * objects unhealthy (web)"), a line per layer in the job summary, and for every object that is
 * not Current its status, kstatus's message and the cause (Pods' container states, Warning
 * Events) in a text block, so repository and cluster content stays inert. The texts are
 * redacted where they are published, as every other posted text.
 */
import { clip, codeBlock, formatDuration, inlineCode } from './markdown.js'
import type { ApplyOutcome, LayerHealthNote, ObjectHealthNote } from './model.js'

/** The one line a run without `wait` carries, so nobody reads "applied" as "healthy". */
export const HEALTH_NOT_CHECKED =
  '<sub>Health was not checked (input `wait` is false): applied means the API server accepted the objects.</sub>'

/** Every object the run waited for, and those not Current. */
export function healthCounts(outcome: ApplyOutcome): {
  total: number
  unhealthy: ObjectHealthNote[]
} {
  const objects = (outcome.health ?? []).flatMap((h) => h?.objects ?? [])
  return { total: objects.length, unhealthy: objects.filter((o) => o.status !== 'Current') }
}

/**
 * The glance of a run that waited: undefined without `wait`, or when the apply failed before
 * any health was known (the apply failure then speaks).
 */
export function healthGlance(outcome: ApplyOutcome): string | undefined {
  if (outcome.health === undefined) return undefined
  const { total, unhealthy } = healthCounts(outcome)
  if (unhealthy.length > 0) {
    const names = unhealthy.map((o) => inlineCode(clip(o.ref.name, 100)))
    const named = names.length > 3 ? [...names.slice(0, 3), `${names.length - 3} more`] : names
    return `❌ Applied, ${unhealthy.length} of ${total} objects unhealthy (${named.join(', ')})`
  }
  if (outcome.failure !== undefined) return undefined
  const ms = (outcome.health ?? []).reduce((sum, h) => sum + (h?.durationMs ?? 0), 0)
  return `✅ Applied and healthy in ${formatSeconds(ms)}`
}

/** `48 s`, `850 ms`, `2 min 5 s`. */
function formatSeconds(ms: number): string {
  if (ms >= 1000 && ms < 60_000) return `${Math.round(ms / 1000)} s`
  return formatDuration(ms)
}

/** The health lines under a layer's table; '' for a layer without health. */
export function layerHealthMarkdown(
  health: LayerHealthNote | null | undefined,
  limit: number
): string {
  if (health === null || health === undefined) return ''
  const took = formatDuration(health.durationMs)
  if (health.healthy) {
    const slowest = [...health.objects]
      .filter((o) => o.currentAfterMs !== undefined)
      .sort((a, b) => (b.currentAfterMs ?? 0) - (a.currentAfterMs ?? 0))
      .slice(0, 5)
      .map((o) => `${inlineCode(objectName(o))} ${formatDuration(o.currentAfterMs ?? 0)}`)
    return (
      `\n**Healthy** in ${took}: ${health.objects.length} objects Current` +
      (slowest.length === 0 ? '' : ` (${slowest.join(', ')})`) +
      '.\n'
    )
  }
  const unhealthy = health.objects.filter((o) => o.status !== 'Current')
  const why =
    health.ended === 'timeout'
      ? `not Current within ${inlineCode(health.timeout)}`
      : 'an object Failed'
  const lines = unhealthy.slice(0, 20).map((o) => objectText(o, limit))
  const more = unhealthy.length > 20 ? `\n…and ${unhealthy.length - 20} more objects` : ''
  return (
    `\n**Not healthy** after ${took} (${why}): ${unhealthy.length} of ${health.objects.length} objects.\n\n` +
    codeBlock(clip(lines.join('\n\n') + more, limit * 2), 'text')
  )
}

function objectName(o: ObjectHealthNote): string {
  return `${o.ref.kind} ${o.ref.namespace === undefined ? '' : `${o.ref.namespace}/`}${o.ref.name}`
}

function objectText(o: ObjectHealthNote, limit: number): string {
  const head = `${objectName(o)} (manifest ${o.manifest}): ${o.status}${o.reason === undefined ? '' : ` ${o.reason}`}: ${o.message}`
  const pods = (o.cause?.pods ?? []).map((p) => `  pod ${p}`)
  const events = (o.cause?.events ?? []).map((e) => `  event ${e}`)
  return clip([head, ...pods, ...events].join('\n'), limit)
}
