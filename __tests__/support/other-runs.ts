// Other test runs on the same machine while ours runs: Jest, or anything running this
// project's test code (scripts/bench.ts uses the e2e harness). Leftovers in the system temp
// dir cannot be attributed to a process afterwards, and other checkouts (older ones litter)
// run on shared machines, so the run root's litter check needs to know whether anyone else
// was running. Linux only (/proc); elsewhere no other run is ever seen.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** Watches for test processes outside this process's tree until stopped. */
export interface OtherRunsWatch {
  /** The working directories of the other runs seen so far, sorted. */
  seen(): string[]
  stop(): void
}

/** Starts watching: one look now, then one every `intervalMs` (the timer does not hold Node). */
export function watchOtherRuns(intervalMs = 2000): OtherRunsWatch {
  const seen = new Set<string>()
  const look = (): void => {
    for (const cwd of otherTestRuns()) seen.add(cwd)
  }
  look()
  const timer = setInterval(look, intervalMs)
  timer.unref()
  return {
    seen: () => {
      look()
      return [...seen].sort()
    },
    stop: () => clearInterval(timer)
  }
}

const TEST_PROCESS = /jest|__tests__\//

function otherTestRuns(): string[] {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  const ancestors = new Set(ancestry(process.pid))
  const cwds: string[] = []
  for (const pid of pids) {
    const cmdline = read(`/proc/${pid}/cmdline`)
    if (cmdline === undefined || !TEST_PROCESS.test(cmdline)) continue
    // Ours: this process, its ancestors (a shell that started Jest) and its descendants.
    if (ancestors.has(Number(pid)) || ancestry(Number(pid)).includes(process.pid)) continue
    try {
      cwds.push(readlinkSync(`/proc/${pid}/cwd`))
    } catch {
      // gone meanwhile
    }
  }
  return cwds
}

/** `pid` and its ancestors up to (not including) init. */
function ancestry(pid: number): number[] {
  const chain: number[] = []
  for (let p = pid; p > 1 && chain.length < 64;) {
    chain.push(p)
    const stat = read(`/proc/${p}/stat`)
    if (stat === undefined) break
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  }
  return chain
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}
