/**
 * The calls a program host (a render worker, src/adapters/render/module.ts, or a native
 * render process, src/adapters/render/native-program.ts) has sent and not had answered, each
 * with its time limit: the bookkeeping both share.
 */
import type { ProgramResponse } from './go-program.js'

/** One unanswered call. */
export interface PendingCall {
  resolve: (response: ProgramResponse) => void
  reject: (error: Error) => void
}

/** The unanswered calls of one host; `idle` is told whenever the last one is settled. */
export function pendingCalls(idle: () => void) {
  let nextId = 1
  const calls = new Map<number, PendingCall & { timer?: ReturnType<typeof setTimeout> }>()
  const settle = (id: number): PendingCall | undefined => {
    const call = calls.get(id)
    if (call === undefined) return undefined
    calls.delete(id)
    clearTimeout(call.timer)
    if (calls.size === 0) idle()
    return call
  }
  return {
    /**
     * A new call's id and its answer; `expire` runs if it is still unanswered after `limitMs`
     * (undefined: no limit).
     */
    add(
      limitMs: number | undefined,
      expire: () => void
    ): { id: number; answer: Promise<ProgramResponse> } {
      const id = nextId++
      const answer = new Promise<ProgramResponse>((resolve, reject) => {
        const timer = limitMs === undefined ? undefined : setTimeout(expire, limitMs)
        calls.set(id, { resolve, reject, ...(timer === undefined ? {} : { timer }) })
      })
      return { id, answer }
    },
    /** Takes call `id` out (undefined if it is not pending) for its caller to settle. */
    settle,
    /** Fails every pending call with `error`. */
    failAll(error: Error): void {
      for (const id of [...calls.keys()]) settle(id)?.reject(error)
    },
    size: (): number => calls.size
  }
}
