// The bench's request analysis (__tests__/bench/requests.ts) on timelines written by hand: the
// expected chain lengths follow from the definition (each request received at least the gap
// after the previous one completed), worked out per case below.
import { describe, expect, it } from '@jest/globals'
import {
  criticalPath,
  criticalPathLength,
  describePath,
  microTime,
  parseAuditLog,
  verbCounts,
  type AuditedRequest
} from '../../bench/requests.js'

/** A request from `start` to `end`, in milliseconds. */
const req = (start: number, end: number, verb = 'get'): AuditedRequest => ({
  verb,
  uri: '/',
  user: 'u',
  code: 200,
  startUs: start * 1000,
  endUs: end * 1000
})

describe('microTime', () => {
  it('keeps the microseconds of the audit log and accepts fewer digits', () => {
    const base = Date.parse('2026-11-27T15:40:00Z') * 1000
    expect(microTime('2026-11-27T15:40:00.123456Z')).toBe(base + 123456)
    expect(microTime('2026-11-27T15:40:00.5Z')).toBe(base + 500000)
    expect(microTime('2026-11-27T15:40:00Z')).toBe(base)
  })

  it('refuses what is not a UTC time', () => {
    expect(() => microTime('2026-11-27 15:40:00')).toThrow('not an RFC 3339 UTC time')
  })
})

describe('parseAuditLog', () => {
  it('keeps completed requests with their user, verb and status', () => {
    const line = (stage: string, verb: string) =>
      JSON.stringify({
        stage,
        verb,
        requestURI: '/api/v1/namespaces/tazuna/configmaps',
        user: { username: 'admin' },
        responseStatus: { code: 200 },
        requestReceivedTimestamp: '2026-11-27T15:40:00.000100Z',
        stageTimestamp: '2026-11-27T15:40:00.002100Z'
      })
    const parsed = parseAuditLog(
      `${line('ResponseStarted', 'watch')}\n${line('ResponseComplete', 'list')}\n`
    )
    expect(parsed).toHaveLength(1)
    expect(parsed[0]).toMatchObject({ verb: 'list', user: 'admin', code: 200 })
    expect(parsed[0]!.endUs - parsed[0]!.startUs).toBe(2000)
  })
})

describe('criticalPathLength', () => {
  it('counts a strictly sequential run as one round trip per request', () => {
    // lock, State list, release: each sent when the previous answer arrived, 30 ms later.
    const requests = [req(0, 1), req(31, 33), req(63, 64)]
    expect(criticalPathLength(requests, 15_000)).toBe(3)
  })

  it('counts concurrent requests as one round trip', () => {
    // Ten applies sent together reach the server within a few milliseconds of each other.
    const requests = Array.from({ length: 10 }, (_, i) => req(i * 0.4, 5 + i))
    expect(criticalPathLength(requests, 15_000)).toBe(1)
  })

  it('finds the longest chain through overlapping waves', () => {
    // A (0-2) → B (32-40) and C (33-35) together → D (65-66) waits for C only: A, C, D = 3.
    // E (20-90) follows A, and nothing follows E: 2.
    const requests = [req(0, 2), req(32, 40), req(33, 35), req(65, 66), req(20, 90)]
    expect(criticalPathLength(requests, 15_000)).toBe(3)
    // On loopback (gap 0) B and C still follow A, and D follows C: still 3.
    expect(criticalPathLength(requests, 0)).toBe(3)
  })

  it('does not chain a request that arrived within the gap after an answer', () => {
    // 5 ms after A's answer: jitter of a concurrent send, not a round trip, at a 30 ms RTT.
    expect(criticalPathLength([req(0, 1), req(6, 7)], 15_000)).toBe(1)
    expect(criticalPathLength([req(0, 1), req(6, 7)], 0)).toBe(2)
  })

  it('is 0 without requests', () => {
    expect(criticalPathLength([], 0)).toBe(0)
  })
})

describe('verbCounts', () => {
  it('lists verbs by count, most first, then by name', () => {
    const requests = [req(0, 1, 'patch'), req(0, 1, 'get'), req(0, 1, 'patch'), req(0, 1, 'create')]
    expect(verbCounts(requests)).toBe('patch 2, create 1, get 1')
  })
})

describe('criticalPath and describePath', () => {
  it('returns the chain first to last and names its steps by verb and resource', () => {
    const at = (start: number, end: number, verb: string, uri: string): AuditedRequest => ({
      ...req(start, end, verb),
      uri
    })
    const requests = [
      at(0, 1, 'create', '/apis/coordination.k8s.io/v1/namespaces/tazuna/leases'),
      at(31, 32, 'list', '/api/v1/namespaces/tazuna/configmaps?labelSelector=x'),
      at(62, 63, 'patch', '/api/v1/namespaces/a/configmaps/one?fieldManager=tazuna'),
      at(62.5, 64, 'patch', '/api/v1/namespaces/a/configmaps/two?fieldManager=tazuna'),
      at(95, 96, 'patch', '/api/v1/namespaces/tazuna/configmaps/tazuna-state-a'),
      at(127, 128, 'delete', '/apis/coordination.k8s.io/v1/namespaces/tazuna/leases/lock'),
      at(130, 131, 'get', '/version')
    ]
    const path = criticalPath(requests, 15_000)
    // The two object patches were sent together: one of them is on the path, not both; the
    // /version call 2 ms after the delete is not a round trip of its own.
    expect(path.map((r) => r.verb)).toEqual(['create', 'list', 'patch', 'patch', 'delete'])
    expect(describePath(path)).toBe(
      'create leases → list configmaps → patch configmaps ×2 → delete leases'
    )
    expect(describePath([requests[6]!])).toBe('get /version')
  })
})
