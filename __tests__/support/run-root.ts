// One temporary root per test run, opened by the global setups in Jest's parent process
// before any worker starts. TMPDIR points at it, so os.tmpdir() in the workers, and every
// child process the tests start, put their files there; removing the root at the end
// removes everything the run created, also after failures. On release, the system temp
// dir must hold no new entry of ours: a leftover there means something ignored TMPDIR.
// The global setups load this with Node's own loader (see cluster/ts-resolve.mjs).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { watchOtherRuns, type OtherRunsWatch } from './other-runs.js'

/** Names this project's tests and tools give temporary entries (old and new). */
const OUR_ENTRY = /^(?:tazuna|kube-client|cli|harness|interop|e2e|ix)-/
/** Run roots: other runs' are open while they run; ours is removed or kept on purpose. */
const RUN_ROOT = /^tazuna-test-run-/

interface RunRoot {
  dir: string
  systemTmp: string
  before: ReadonlySet<string>
  previousTmpdir: string | undefined
  users: number
  keep: boolean
  otherRuns: OtherRunsWatch
}

declare global {
  /** The open run root, shared by the unit and integration global setups and teardowns. */
  var __tazunaTestRunRoot: RunRoot | undefined
  /** releaseRunRoot, for the teardowns (which import nothing: see ts-resolve.mjs). */
  var __tazunaTestRunRootRelease: (() => void) | undefined
}

/**
 * Opens the run root (or joins the one already open: each project's setup calls this) and
 * sets TAZUNA_TEST_TMP and TMPDIR to it. `keep` leaves it on disk at release (for logs).
 */
export function openRunRoot(options: { keep?: boolean } = {}): string {
  const open = globalThis.__tazunaTestRunRoot
  if (open !== undefined) {
    open.users++
    open.keep ||= options.keep ?? false
    return open.dir
  }
  const systemTmp = os.tmpdir()
  const before = new Set(readdirSync(systemTmp))
  const dir = mkdtempSync(path.join(systemTmp, 'tazuna-test-run-'))
  globalThis.__tazunaTestRunRoot = {
    dir,
    systemTmp,
    before,
    previousTmpdir: process.env.TMPDIR,
    users: 1,
    keep: options.keep ?? false,
    otherRuns: watchOtherRuns()
  }
  globalThis.__tazunaTestRunRootRelease = releaseRunRoot
  process.env.TAZUNA_TEST_TMP = dir
  process.env.TMPDIR = dir
  return dir
}

/**
 * Leaves the run root; the last user removes it and throws (failing the run) when the
 * system temp dir gained entries named like ours. When other test runs were seen meanwhile
 * (other checkouts on a shared machine), such entries may be theirs: then it only warns.
 */
export function releaseRunRoot(): void {
  const root = globalThis.__tazunaTestRunRoot
  if (root === undefined || --root.users > 0) return
  globalThis.__tazunaTestRunRoot = undefined
  if (root.previousTmpdir === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = root.previousTmpdir
  delete process.env.TAZUNA_TEST_TMP
  if (root.keep) process.stderr.write(`test run root kept: ${root.dir}\n`)
  else rmSync(root.dir, { recursive: true, force: true })
  const others = root.otherRuns.seen()
  root.otherRuns.stop()
  const litter = newEntriesOfOurs(root)
  if (litter.length === 0) return
  const found =
    `${litter.length} new entries named like ours in ${root.systemTmp} ` +
    `(see __tests__/README.md): ${litter.join(', ')}`
  if (others.length === 0) throw new Error(`the tests left ${found}`)
  process.stderr.write(
    `warning: ${found}; not failing: other test runs (in ${others.join(', ')}) ran meanwhile\n`
  )
}

function newEntriesOfOurs(root: RunRoot): string[] {
  return readdirSync(root.systemTmp)
    .filter((name) => !root.before.has(name) && OUR_ENTRY.test(name) && !RUN_ROOT.test(name))
    .sort()
}
