/**
 * What a run asked of the API server, read from the test cluster's audit log (the launcher turns
 * it on: one event per request, with the server's receive and completion times): how many
 * requests, and how many **round trips sit on the critical path** — the longest chain of
 * requests where each one reached the server only after the one before it had been answered.
 * Measured at the server, so it holds for any client (the action, the Tazuna CLI) and counts
 * nothing the client did not send.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'

/** One request as the server saw it; times in microseconds since the epoch. */
export interface AuditedRequest {
  verb: string
  uri: string
  user: string
  code: number | undefined
  startUs: number
  endUs: number
}

interface AuditEvent {
  stage?: string
  verb?: string
  requestURI?: string
  user?: { username?: string }
  responseStatus?: { code?: number }
  requestReceivedTimestamp?: string
  stageTimestamp?: string
}

/** `2026-11-27T15:40:00.123456Z` → microseconds since the epoch (the audit log's MicroTime). */
export function microTime(text: string): number {
  const m = /^(.{19})(?:\.(\d{1,9}))?Z$/.exec(text)
  if (!m) throw new Error(`not an RFC 3339 UTC time: ${text}`)
  const seconds = Date.parse(`${m[1]}Z`)
  if (Number.isNaN(seconds)) throw new Error(`not an RFC 3339 UTC time: ${text}`)
  const fraction = (m[2] ?? '').padEnd(6, '0').slice(0, 6)
  return seconds * 1000 + Number(fraction)
}

/** Parses audit log lines (JSON, one event each), keeping completed requests. */
export function parseAuditLog(text: string): AuditedRequest[] {
  const out: AuditedRequest[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    const e = JSON.parse(line) as AuditEvent
    if (e.stage !== 'ResponseComplete' && e.stage !== 'Panic') continue
    if (!e.requestReceivedTimestamp || !e.stageTimestamp) continue
    out.push({
      verb: e.verb ?? '',
      uri: e.requestURI ?? '',
      user: e.user?.username ?? '',
      code: e.responseStatus?.code,
      startUs: microTime(e.requestReceivedTimestamp),
      endUs: microTime(e.stageTimestamp)
    })
  }
  return out
}

/** Where the audit log ends now: a run's events are written after it. */
export function auditLogEnd(auditLog: string): number {
  return existsSync(auditLog) ? statSync(auditLog).size : 0
}

/**
 * The requests of one run: written after byte `from` (auditLogEnd before the run; the whole log
 * again if it was rotated since), received within [fromMs, toMs] (wall clock), by `user` when
 * given.
 */
export function readRequests(
  auditLog: string,
  window: { from?: number; fromMs: number; toMs: number; user?: string }
): AuditedRequest[] {
  if (!existsSync(auditLog)) return []
  const all = readFileSync(auditLog)
  const from = window.from !== undefined && window.from <= all.length ? window.from : 0
  return parseAuditLog(all.subarray(from).toString('utf8')).filter(
    (r) =>
      r.startUs >= window.fromMs * 1000 &&
      r.startUs <= window.toMs * 1000 &&
      (window.user === undefined || r.user === window.user)
  )
}

/**
 * The gap that tells a request that waited for an answer from one sent beside it, through a
 * delay of `oneWayDelayUs` each way (0 on loopback): a request that waited reaches the server
 * at least a whole round trip after the answer it waited for; one that did not, within the
 * client's own CPU time. Three quarters of a round trip leaves half a round trip of margin on
 * both sides, so that a client slowed by a loaded machine is not counted as waiting.
 */
export function waitGapUs(oneWayDelayUs: number): number {
  return oneWayDelayUs * 1.5
}

/**
 * The longest chain of requests where each was received at least `gapUs` after the previous one
 * completed, first to last (waitGapUs gives the gap for a delay). O(n log n).
 */
export function criticalPath(requests: readonly AuditedRequest[], gapUs: number): AuditedRequest[] {
  const byStart = [...requests.keys()].sort((a, b) => requests[a]!.startUs - requests[b]!.startUs)
  const byReady = [...requests.keys()].sort((a, b) => requests[a]!.endUs - requests[b]!.endUs)
  const chain = new Array<number>(requests.length).fill(0)
  const previous = new Array<number>(requests.length).fill(-1)
  let ready = 0
  let best = -1
  let last = -1
  for (const i of byStart) {
    const start = requests[i]!.startUs
    // Every request answered gapUs before this one started was itself started earlier, so its
    // chain is known already.
    while (ready < byReady.length && requests[byReady[ready]!]!.endUs + gapUs <= start) {
      const j = byReady[ready]!
      if (best < 0 || chain[j]! > chain[best]!) best = j
      ready++
    }
    chain[i] = (best < 0 ? 0 : chain[best]!) + 1
    previous[i] = best
    if (last < 0 || chain[i] > chain[last]!) last = i
  }
  const path: AuditedRequest[] = []
  for (let i = last; i >= 0; i = previous[i]!) path.unshift(requests[i]!)
  return path
}

/** The number of requests on the critical path (see criticalPath). */
export function criticalPathLength(requests: readonly AuditedRequest[], gapUs: number): number {
  return criticalPath(requests, gapUs).length
}

/**
 * The critical path in a line: its requests as `verb resource`, runs of the same collapsed
 * (`create lease → list configmaps → patch configmaps ×4 → delete lease`).
 */
export function describePath(path: readonly AuditedRequest[]): string {
  const steps: { label: string; count: number }[] = []
  for (const r of path) {
    const label = `${r.verb} ${resourceOf(r.uri)}`
    const top = steps[steps.length - 1]
    if (top?.label === label) top.count++
    else steps.push({ label, count: 1 })
  }
  return steps.map((s) => (s.count > 1 ? `${s.label} ×${s.count}` : s.label)).join(' → ')
}

/** `/api/v1/namespaces/tazuna/configmaps/x?y` → `configmaps`; `/version` → `/version`. */
function resourceOf(uri: string): string {
  const parts = uri.split('?')[0]!.split('/').filter(Boolean)
  if (parts[0] !== 'api' && parts[0] !== 'apis') return `/${parts.join('/')}`
  const rest = parts.slice(parts[0] === 'api' ? 2 : 3)
  if (rest[0] === 'namespaces' && rest.length > 2) rest.splice(0, 2)
  return rest[0] ?? `/${parts.join('/')}`
}

/** `GET 12, PATCH 300, …`: requests per verb, most first. */
export function verbCounts(requests: readonly AuditedRequest[]): string {
  const counts = new Map<string, number>()
  for (const r of requests) counts.set(r.verb, (counts.get(r.verb) ?? 0) + 1)
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([verb, n]) => `${verb} ${n}`)
    .join(', ')
}
