import { describe, expect, it } from '@jest/globals'
import { systemClock } from '../../../src/adapters/clock.js'

describe('the system clock', () => {
  it('ends a sleep when its signal aborts (an hour-long sleep would time the test out)', async () => {
    const stop = new AbortController()
    const sleeping = systemClock.sleep(3_600_000, stop.signal)
    stop.abort()
    await expect(sleeping).resolves.toBeUndefined()
  })

  it('does not sleep at all with a signal already aborted', async () => {
    await expect(systemClock.sleep(3_600_000, AbortSignal.abort())).resolves.toBeUndefined()
  })

  it('sleeps without a signal', async () => {
    const before = systemClock.now()
    await systemClock.sleep(5)
    expect(systemClock.now()).toBeGreaterThanOrEqual(before + 4)
  })
})
