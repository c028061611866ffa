import { describe, expect, it } from '@jest/globals'
import {
  acquireLock,
  LockTimeoutError,
  leaseExpired,
  lockNameFor,
  type LeaseRecord,
  type LeaseStore,
  type LeaseWrite
} from '../../../src/apply/lease-lock.js'
import type { Clock } from '../../../src/apply/ports.js'

/** Leases in memory, with resourceVersion checks like the API server's. */
class MemoryLeases implements LeaseStore {
  readonly leases = new Map<string, LeaseRecord>()
  readonly calls: string[] = []
  private version = 0

  read(name: string): Promise<LeaseRecord | undefined> {
    this.calls.push('read')
    return Promise.resolve(this.leases.get(name))
  }
  create(name: string, lease: LeaseWrite): Promise<LeaseRecord | 'conflict'> {
    this.calls.push(`create ${lease.holder}`)
    if (this.leases.has(name)) return Promise.resolve('conflict')
    return Promise.resolve(this.put(name, lease))
  }
  update(name: string, lease: LeaseWrite, rv: string): Promise<LeaseRecord | 'conflict'> {
    this.calls.push(`update ${lease.holder}`)
    if (this.leases.get(name)?.resourceVersion !== rv) return Promise.resolve('conflict')
    return Promise.resolve(this.put(name, lease))
  }
  remove(name: string, rv: string): Promise<void> {
    this.calls.push('remove')
    if (this.leases.get(name)?.resourceVersion === rv) this.leases.delete(name)
    return Promise.resolve()
  }
  private put(name: string, lease: LeaseWrite): LeaseRecord {
    const record = {
      holder: lease.holder,
      renewedAt: lease.now,
      durationSeconds: lease.durationSeconds,
      resourceVersion: String(++this.version)
    }
    this.leases.set(name, record)
    return record
  }
}

/** A clock whose sleep advances time at once (yielding, so concurrent loops interleave). */
function fakeClock(start = 1_000_000): Clock & { t: number } {
  const clock = {
    t: start,
    now: () => clock.t,
    sleep: (ms: number) =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          clock.t += ms
          resolve()
        })
      )
  }
  return clock
}

/** A Lease of 60 s left by `holder`, last renewed at `renewedAt`. */
function plant(store: MemoryLeases, holder: string, renewedAt: number, resourceVersion: string) {
  store.leases.set('tazuna-lock-x', { holder, renewedAt, durationSeconds: 60, resourceVersion })
}

const quiet = { info: () => undefined, warn: () => undefined }
const options = { name: 'tazuna-lock-x', holder: 'run-1', ttlSeconds: 60, waitSeconds: 30 }

describe('the run lock', () => {
  it('releases without waiting for the renewal loop to wake by itself', async () => {
    // A clock whose sleep ends only when aborted: release must abort it, or it never returns.
    const clock: Clock = {
      now: () => 1_000_000,
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()))
    }
    const store = new MemoryLeases()
    const held = await acquireLock(store, clock, quiet, options)
    await held.release()
    expect(store.leases.size).toBe(0)
  })

  it('creates the Lease when there is none, and deletes it on release', async () => {
    const store = new MemoryLeases()
    const held = await acquireLock(store, fakeClock(), quiet, options)
    expect(store.leases.get('tazuna-lock-x')?.holder).toBe('run-1')
    // A free lock costs one request: the create, without reading first.
    expect(store.calls).toEqual(['create run-1'])
    await held.release()
    expect(store.leases.size).toBe(0)
  })

  it('takes over its own Lease left behind, reading it after the create conflicts', async () => {
    const store = new MemoryLeases()
    const clock = fakeClock()
    plant(store, 'run-1', clock.t - 1_000, '3')
    const held = await acquireLock(store, clock, quiet, options)
    expect(store.calls).toEqual(['create run-1', 'read', 'update run-1'])
    expect(store.leases.get('tazuna-lock-x')?.resourceVersion).not.toBe('3')
    await held.release()
    expect(store.leases.size).toBe(0)
  })

  it('waits for a live holder and fails after lock-timeout naming it', async () => {
    const store = new MemoryLeases()
    const clock = fakeClock()
    const other = await acquireLock(store, clock, quiet, {
      ...options,
      holder: 'other run on host-a'
    })
    const lines: string[] = []
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) }
    // The other holder keeps renewing (its renew loop runs on the same fake clock).
    const attempt = acquireLock(store, clock, log, { ...options, ttlSeconds: 600 })
    await expect(attempt).rejects.toThrow(LockTimeoutError)
    await expect(attempt).rejects.toThrow(
      /lock tazuna-lock-x is held by other run on host-a \(renewed \d+ s ago.*waited 30 s \(lock-timeout 30 s\)/
    )
    expect(lines.filter((l) => l.startsWith('waiting for lock'))).toHaveLength(1)
    await other.release()
  })

  it('takes over a Lease whose holder stopped renewing once it expired', async () => {
    const store = new MemoryLeases()
    const clock = fakeClock()
    plant(store, 'killed run', clock.t - 50_000, '7')
    const held = await acquireLock(store, clock, quiet, options)
    expect(store.leases.get('tazuna-lock-x')?.holder).toBe('run-1')
    expect(clock.t - 1_000_000).toBeGreaterThanOrEqual(10_000)
    await held.release()
  })

  it('renews while held, so a waiter never sees it expire', async () => {
    const store = new MemoryLeases()
    const clock = fakeClock()
    const held = await acquireLock(store, clock, quiet, { ...options, ttlSeconds: 3 })
    for (let i = 0; i < 20; i++) await clock.sleep(500)
    expect(store.calls.filter((c) => c === 'update run-1').length).toBeGreaterThan(0)
    expect(leaseExpired(store.leases.get('tazuna-lock-x')!, clock.t)).toBe(false)
    await held.release()
  })

  it('names the Lease after the environment and the manifest names, in any order', () => {
    expect(lockNameFor(['web', 'db'], '')).toMatch(/^tazuna-lock-default-[0-9a-f]{12}$/)
    expect(lockNameFor(['db', 'web'], '')).toBe(lockNameFor(['web', 'db'], ''))
    expect(lockNameFor(['web', 'db'], 'Prod_EU')).toMatch(/^tazuna-lock-prod-eu-[0-9a-f]{12}$/)
    expect(lockNameFor(['web'], '')).not.toBe(lockNameFor(['web', 'db'], ''))
    expect(lockNameFor(['web'], 'a')).not.toBe(lockNameFor(['web'], 'b'))
  })

  it('keeps the name within a DNS label', () => {
    expect(lockNameFor(['m'], 'x'.repeat(200)).length).toBeLessThanOrEqual(63)
  })
})
