/**
 * Health in one line each (docs/health.md#wait): the objects of a layer that are not Current,
 * for the run's error message and the log.
 */
import type { KStatus } from './kstatus.js'

/** The part of a layer's health these lines need. */
export interface HealthLines {
  ended: 'current' | 'failed' | 'timeout'
  timeout: string
  objects: readonly {
    ref: { apiVersion: string; kind: string; namespace?: string; name: string }
    status: KStatus
    message: string
    reason?: string
  }[]
}

/** `Kind namespace/name` — how health lines name an object. */
export function objectName(ref: HealthLines['objects'][number]['ref']): string {
  return `${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`
}

/**
 * Why a layer is not healthy: `Deployment web/api is Failed (ProgressDeadlineExceeded: Progress
 * deadline exceeded)`; after a timeout, `not Current within 5m: …` naming every object that
 * is not Current with its status.
 */
export function describeUnhealthy(health: HealthLines): string {
  const bad = health.objects.filter((o) =>
    health.ended === 'failed' ? o.status === 'Failed' : o.status !== 'Current'
  )
  const lines = bad.map(
    (o) =>
      `${objectName(o.ref)} is ${o.status} (${o.reason === undefined ? '' : `${o.reason}: `}${o.message})`
  )
  const head = health.ended === 'timeout' ? `not Current within ${health.timeout}: ` : ''
  return head + lines.join('; ')
}
