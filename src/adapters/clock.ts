/** The real clock behind the Clock port (src/apply/ports.ts). */
import type { Clock } from '../apply/ports.js'

/** Wall-clock milliseconds and real sleeping. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms))
}
