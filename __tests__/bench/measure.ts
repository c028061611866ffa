/**
 * Measuring one command: wall time (from spawn to exit, and to its first byte of output) and
 * peak resident memory (GNU time's %M, the process and its waited-for children's maximum).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** One run of a command. */
export interface Measurement {
  seconds: number
  /** Seconds until the first byte on stdout or stderr (undefined when it printed nothing). */
  firstOutputSeconds: number | undefined
  /** Peak RSS in MiB (undefined without /usr/bin/time). */
  maxRssMiB: number | undefined
  code: number
  stdout: string
  stderr: string
}

const GNU_TIME = '/usr/bin/time'

/** Whether peak memory can be measured. */
export const canMeasureMemory = existsSync(GNU_TIME)

/** Runs `argv` and measures it; never throws for a non-zero exit. */
export async function measure(
  argv: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}
): Promise<Measurement> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-time-'))
  const timeFile = path.join(dir, 'rss')
  const command = canMeasureMemory ? [GNU_TIME, '-f', '%M', '-o', timeFile, ...argv] : [...argv]
  const started = performance.now()
  let first: number | undefined
  const out = { stdout: '', stderr: '' }
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      first ??= performance.now()
      out[stream] += chunk.toString('utf8')
    }
    child.stdout.on('data', onData('stdout'))
    child.stderr.on('data', onData('stderr'))
    child.on('error', reject)
    child.on('close', (status) => resolve(status ?? 1))
  })
  const seconds = (performance.now() - started) / 1000
  let maxRssMiB: number | undefined
  if (canMeasureMemory) {
    const kib = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop())
    maxRssMiB = Number.isFinite(kib) ? kib / 1024 : undefined
  }
  rmSync(dir, { recursive: true, force: true })
  return {
    seconds,
    firstOutputSeconds: first === undefined ? undefined : (first - started) / 1000,
    maxRssMiB,
    code,
    ...out
  }
}

/** The median of the values (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}
