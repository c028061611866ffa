/**
 * The run lock: one `coordination.k8s.io/v1` Lease per configuration in namespace `tazuna`,
 * held by one apply at a time (the action's or the command line's). The holder renews it while
 * the apply runs; a killed holder's Lease expires after its TTL, so it blocks nobody for long.
 * The Lease is a separate object: State stays byte-compatible with Tazuna, which knows no lock.
 */
import { createHash } from 'node:crypto'
import type { ApplyLog, Clock } from './ports.js'

/** A Lease as the lock reads it; `renewedAt` in epoch milliseconds. */
export interface LeaseRecord {
  holder: string
  renewedAt: number
  durationSeconds: number
  resourceVersion: string
}

/** What a Lease write sets. */
export interface LeaseWrite {
  holder: string
  durationSeconds: number
  now: number
}

/** The Leases in namespace `tazuna` (src/adapters/kube/lease-store.ts). */
export interface LeaseStore {
  read(name: string): Promise<LeaseRecord | undefined>
  /** Creates the Lease; `conflict` when another writer created it first. */
  create(name: string, lease: LeaseWrite): Promise<LeaseRecord | 'conflict'>
  /** Replaces the Lease read at `resourceVersion`; `conflict` when it changed since. */
  update(
    name: string,
    lease: LeaseWrite,
    resourceVersion: string
  ): Promise<LeaseRecord | 'conflict'>
  /** Deletes the Lease if it is still at `resourceVersion`. */
  remove(name: string, resourceVersion: string): Promise<void>
}

/** How to take the lock. */
export interface LockOptions {
  name: string
  /** Who holds it: run id and host, shown to whoever waits. */
  holder: string
  /** How long the Lease lives without renewal. */
  ttlSeconds: number
  /** How long to wait for another holder before failing. */
  waitSeconds: number
}

/** A held lock: renewed in the background until released. */
export interface HeldLock {
  release(): Promise<void>
}

/** The lock is held by another run and did not come free in time. */
export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError'
}

const POLL_MS = 2000
const TICK_MS = 1000

/**
 * The Lease name of a configuration: `tazuna-lock-`, the environment (or `default`) and a hash
 * of its manifest names. Runs that share a manifest name share its State ConfigMap, so they
 * must not interleave; unrelated configurations on one cluster do not block each other. The
 * action and the command line compute the same name for the same tazuna.yaml.
 */
export function lockNameFor(manifests: readonly string[], environment: string): string {
  const names = [...new Set(manifests)].sort()
  const hash = createHash('sha256')
    .update(JSON.stringify([environment, names]))
    .digest('hex')
    .slice(0, 12)
  const env =
    environment
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 30)
      .replace(/-+$/, '') || 'default'
  return `tazuna-lock-${env}-${hash}`
}

/** Whether a Lease has run out at `now` (a holder that stopped renewing). */
export function leaseExpired(lease: LeaseRecord, now: number): boolean {
  return now >= lease.renewedAt + lease.durationSeconds * 1000
}

/**
 * Takes the lock: creates the Lease, takes over an expired one or one of the same holder, or
 * waits for the holder to release it, up to `waitSeconds`; then fails naming the holder.
 * A free lock (no Lease: a release deletes it) is taken with one request, the create.
 */
export async function acquireLock(
  store: LeaseStore,
  clock: Clock,
  log: ApplyLog,
  options: LockOptions
): Promise<HeldLock> {
  const start = clock.now()
  const taken = await store.create(options.name, {
    holder: options.holder,
    durationSeconds: options.ttlSeconds,
    now: start
  })
  if (taken !== 'conflict') {
    log.info(`lock ${options.name} taken by ${options.holder}`)
    return keepRenewed(store, clock, log, options, taken)
  }
  let announced = ''
  for (;;) {
    const now = clock.now()
    const current = await store.read(options.name)
    const write = { holder: options.holder, durationSeconds: options.ttlSeconds, now }
    let taken: LeaseRecord | 'conflict' | undefined
    if (current === undefined) taken = await store.create(options.name, write)
    else if (current.holder === options.holder || leaseExpired(current, now)) {
      taken = await store.update(options.name, write, current.resourceVersion)
    }
    if (taken !== undefined && taken !== 'conflict') {
      log.info(`lock ${options.name} taken by ${options.holder}`)
      return keepRenewed(store, clock, log, options, taken)
    }
    if (current !== undefined && taken === undefined) {
      const waited = (now - start) / 1000
      const held = describeHolder(current, now)
      if (waited >= options.waitSeconds) {
        throw new LockTimeoutError(
          `lock ${options.name} is held by ${held}; waited ${Math.round(waited)} s ` +
            `(lock-timeout ${options.waitSeconds} s). Wait for that run, or delete the Lease ` +
            `tazuna/${options.name} if it is certain that no run holds it.`
        )
      }
      if (announced !== current.holder)
        log.info(`waiting for lock ${options.name}, held by ${held}`)
      announced = current.holder
    }
    await clock.sleep(POLL_MS)
  }
}

function describeHolder(lease: LeaseRecord, now: number): string {
  const renewed = Math.max(0, Math.round((now - lease.renewedAt) / 1000))
  const left = Math.max(
    0,
    Math.round((lease.renewedAt + lease.durationSeconds * 1000 - now) / 1000)
  )
  return `${lease.holder} (renewed ${renewed} s ago, expires in ${left} s unless renewed)`
}

function keepRenewed(
  store: LeaseStore,
  clock: Clock,
  log: ApplyLog,
  options: LockOptions,
  first: LeaseRecord
): HeldLock {
  let lease = first
  let released = false
  // Release wakes the loop: it must not wait out a tick (up to a second on every apply).
  const stop = new AbortController()
  const renewEveryMs = (options.ttlSeconds * 1000) / 3
  const renewing = (async () => {
    while (!released) {
      await clock.sleep(TICK_MS, stop.signal)
      if (released || clock.now() - lease.renewedAt < renewEveryMs) continue
      const write = {
        holder: options.holder,
        durationSeconds: options.ttlSeconds,
        now: clock.now()
      }
      try {
        const renewed = await store.update(options.name, write, lease.resourceVersion)
        if (renewed === 'conflict') {
          log.warn(
            `lock ${options.name} was taken over by another run; this run no longer holds it`
          )
          return
        }
        lease = renewed
      } catch (error) {
        log.warn(`could not renew lock ${options.name}: ${(error as Error).message}`)
      }
    }
  })()
  // Released once: the run's own release and a process stopping at once may both ask.
  let releasing: Promise<void> | undefined
  return {
    release() {
      return (releasing ??= (async () => {
        released = true
        stop.abort()
        await renewing
        await store.remove(options.name, lease.resourceVersion)
      })())
    }
  }
}
