/**
 * `npm run bench`'s `risk-pass` scenario: what the risk pass (docs/risks.md) adds to a Diff of
 * 3,000 objects with no risky change. The Diff is `state diff --content` of the fresh bundle's
 * command line (it runs the pass as shipped) on a raw repository applied once and then changed
 * in every object; the pass itself is timed in-process by ./risk-pass.ts over the same objects
 * (cold, as a command line runs it once, and warm). The issue's target: the pass adds at most
 * 5% to the Diff's time. Reports figures; asserts nothing about time.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { measure, median, type Measurement } from './measure.js'
import { benchRepoFiles, commitBenchRepo, manifestNames, writeBenchRepo } from './repo.js'
import type { BenchRepoOptions } from './repo.js'
import { deleteBenchState } from './state-cleanup.js'

/** What the scenario runs. */
export interface RiskScenarioOptions {
  /** The command line, as argv before the command's own arguments (`node <bundle>/cli.js`). */
  cli: readonly string[]
  /** Runs of `state diff --content`. */
  reps: number
  /** Warm runs of the pass after the cold one. */
  warm: number
}

/** The pass's in-process figures, as ./risk-pass.ts prints them. */
interface PassFigures {
  objects: number
  entries: number
  coldMs: number
  warmMedianMs: number
}

const layout = { manifests: 50, objectsPerManifest: 60, layers: 5 }

/** Runs the scenario and returns its Markdown section. */
export async function runRiskScenario(options: RiskScenarioOptions): Promise<string> {
  const id = `risk${Date.now().toString(36)}`
  const repo: BenchRepoOptions = { id, shape: 'raw', ...layout }
  const dir = mkdtempSync(path.join(os.tmpdir(), `bench-${id}-`))
  writeBenchRepo(dir, benchRepoFiles(repo))
  const file = path.join(dir, 'tazuna.yaml')
  const cli = (argv: string[]) => measure([...options.cli, ...argv, '-f', file], { cwd: dir })
  checked(await cli(['apply', '--sync']), 'apply --sync')
  commitBenchRepo(dir)
  writeBenchRepo(dir, benchRepoFiles({ ...repo, modifyEvery: 1 }))
  const diffs: Measurement[] = []
  for (let rep = 0; rep < options.reps; rep++) {
    const m = checked(await cli(['state', 'diff', '--content']), 'state diff --content')
    const shown = m.stdout.split('\n').filter((l) => l.startsWith('--- base/')).length
    if (shown !== 3000)
      throw new Error(`state diff --content showed ${shown} object diffs, not 3000`)
    process.stderr.write(`  risk-pass: state diff --content ${m.seconds.toFixed(2)} s\n`)
    diffs.push(m)
  }
  const pass = passFigures(id, options.warm)
  await deleteBenchState(manifestNames(repo))
  return section(median(diffs.map((m) => m.seconds)), pass, options)
}

function checked(m: Measurement, what: string): Measurement {
  if (m.code !== 0) throw new Error(`${what} exited ${m.code}:\n${m.stderr.slice(-3000)}`)
  return m
}

function passFigures(id: string, warm: number): PassFigures {
  const script = path.join(import.meta.dirname, 'risk-pass.ts')
  const hooks = path.join(import.meta.dirname, 'ts-resolve.mjs')
  const argv = ['--no-warnings', '--experimental-transform-types', '--import', hooks, script]
  const flags = ['--id', id, '--manifests', String(layout.manifests)]
  flags.push('--objects-per-manifest', String(layout.objectsPerManifest))
  flags.push('--layers', String(layout.layers), '--warm', String(warm))
  const run = spawnSync(process.execPath, [...argv, ...flags], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`risk-pass.ts exited ${run.status}:\n${run.stderr}`)
  return JSON.parse(run.stdout) as PassFigures
}

function section(diffSeconds: number, pass: PassFigures, options: RiskScenarioOptions): string {
  const cold = pass.coldMs / 1000
  const ratio = (seconds: number): string =>
    `${((seconds / (diffSeconds - cold)) * 100).toFixed(2)}%`
  return [
    '',
    '## Risk pass (3,000 objects changed, no risky change)',
    '',
    '| figure | value |',
    '| --- | --- |',
    `| \`state diff --content\`, median of ${options.reps} (with the pass) | ${diffSeconds.toFixed(2)} s |`,
    `| risk pass in-process, cold (once, as a run does) | ${pass.coldMs.toFixed(1)} ms |`,
    `| risk pass in-process, warm median of ${options.warm} | ${pass.warmMedianMs.toFixed(1)} ms |`,
    `| added to the Diff without it (cold pass / (Diff − pass)) | ${ratio(cold)} (target ≤ 5%) |`,
    '',
    `${pass.objects} objects, ${pass.entries} modified entries, no finding.`,
    ''
  ].join('\n')
}
