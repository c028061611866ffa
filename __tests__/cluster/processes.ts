// Child processes of the test cluster: start with output to a log file, wait for an HTTP
// endpoint, stop by PID, and make sure nothing outlives the process that started it.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

/** A started server process and the file its stdout and stderr go to. */
export interface ServerProcess {
  name: string
  pid: number
  logFile: string
  child: ChildProcess
  /** Settles when the process has exited, whoever stopped it. */
  exited: Promise<void>
}

/** Returns `count` distinct TCP ports that were free on 127.0.0.1 a moment ago. */
export async function pickFreePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = net.createServer()
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', resolve)
      })
      return server
    })
  )
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port)
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
  return ports
}

/** Starts `bin` with `args`, appending its output to `logFile`. */
export function startProcess(
  name: string,
  bin: string,
  args: string[],
  logFile: string
): ServerProcess {
  const fd = openSync(logFile, 'a')
  const child = spawn(bin, args, { stdio: ['ignore', fd, fd] })
  closeSync(fd)
  if (child.pid === undefined) throw new Error(`${name}: could not start ${bin}`)
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  child.once('error', () => undefined) // surfaces as an early exit in waitUntilReady
  return { name, pid: child.pid, logFile, child, exited }
}

/** The last `lines` lines of a process's log, for error messages. */
export function logTail(proc: ServerProcess, lines = 25): string {
  try {
    return readFileSync(proc.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

/**
 * Polls `probe` until it resolves true; fails early if the process exits and after
 * `timeoutMs` otherwise, with the tail of the process's log in the message.
 */
export async function waitUntilReady(
  proc: ServerProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let exited = false
  void proc.exited.then(() => (exited = true))
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(
        `${proc.name} exited during start-up (${describeExit(proc)}); log ${proc.logFile}:\n${logTail(proc)}`
      )
    }
    if (await probe().catch(() => false)) return
    await sleep(250)
  }
  throw new Error(
    `${proc.name} not ready after ${timeoutMs} ms; log ${proc.logFile}:\n${logTail(proc)}`
  )
}

function describeExit(proc: ServerProcess): string {
  const { exitCode, signalCode } = proc.child
  return signalCode ? `signal ${signalCode}` : `exit code ${exitCode}`
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(proc: ServerProcess, graceMs = 5000): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return
  signal(proc.pid, 'SIGTERM')
  // ref: false - the grace timer must not keep Node (and Jest) alive once the process is gone.
  const grace = sleep(graceMs, false, { ref: false })
  const stopped = await Promise.race([proc.exited.then(() => true), grace])
  if (!stopped) {
    signal(proc.pid, 'SIGKILL')
    await proc.exited
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}

const owned = new Set<ServerProcess>()
let hooksInstalled = false

/**
 * Kills `proc` when this Node process exits or is interrupted, so that an aborted test run
 * leaves no kube-apiserver or etcd behind. SIGKILL, because an exit handler cannot wait.
 */
export function killOnParentExit(proc: ServerProcess): void {
  owned.add(proc)
  void proc.exited.then(() => owned.delete(proc))
  if (hooksInstalled) return
  hooksInstalled = true
  process.once('exit', killOwned)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killOwned()
      process.removeListener(sig, onSignal)
      // Keep the default behaviour (terminate) unless someone else handles the signal.
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig)
    }
    process.on(sig, onSignal)
  }
}

function killOwned(): void {
  for (const proc of owned) signal(proc.pid, 'SIGKILL')
}

/**
 * Starts a detached watchdog that kills `pids` once `parentPid` is gone - the one case the
 * exit hooks above cannot cover: the parent killed with SIGKILL (a CI timeout, say).
 */
export function startReaper(parentPid: number, pids: number[]): number | undefined {
  const script =
    'parent=$1; shift; while kill -0 "$parent" 2>/dev/null; do sleep 2; done; ' +
    'kill -TERM "$@" 2>/dev/null; sleep 5; kill -KILL "$@" 2>/dev/null; exit 0'
  const reaper = spawn(
    'sh',
    ['-c', script, 'tazuna-cluster-reaper', String(parentPid), ...pids.map(String)],
    {
      detached: true,
      stdio: 'ignore'
    }
  )
  reaper.unref()
  return reaper.pid
}
