/**
 * Peak memory of the bad-input corpus (docs/reliability.md#hostile-input): compiles src/ with
 * tsc into the cache, then runs `check`/`build` of every heavy case (and a valid baseline) as
 * its own process under GNU time and prints a Markdown table of exit code, seconds and peak RSS.
 * Not a test: figures depend on the machine. Run:
 *   node --import ./__tests__/bench/ts-resolve.mjs __tests__/bench/bad-input-rss.ts [--all]
 * `--all` measures every case, not only the heavy ones. GNU time's %M is the largest resident
 * set of the process or of any one waited-for child (kustomize in build cases), not their sum.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { badInputCases, type BadInputCase } from '../support/bad-input-corpus.js'
import { canMeasureMemory, measure } from './measure.js'

const root = path.join(import.meta.dirname, '..', '..')
const cache = process.env.TAZUNA_ACTION_CACHE ?? path.join(os.homedir(), '.cache', 'tazuna-action')

/** Compiles the project with tsc into the cache and returns a runner script for the CLI. */
function compileCli(): string {
  const out = path.join(cache, 'bad-input-rss')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--outDir', out],
    { stdio: 'inherit' }
  )
  writeFileSync(
    path.join(out, 'package.json'),
    JSON.stringify({ type: 'module', version: '0.0.0' })
  )
  symlinkSync(path.join(root, 'node_modules'), path.join(out, 'node_modules'))
  // The WebAssembly programs (template engine, render module) are built from their Go sources
  // next to the code, by scripts found there.
  for (const part of ['build-go.sh', 'template/engine', 'render/module']) {
    const source = path.join(root, 'src', 'go', part)
    if (!existsSync(source)) continue
    rmSync(path.join(out, 'src', 'go', part), { recursive: true, force: true })
    mkdirSync(path.dirname(path.join(out, 'src', 'go', part)), { recursive: true })
    symlinkSync(source, path.join(out, 'src', 'go', part))
  }
  const runner = path.join(out, 'run-cli.mjs')
  writeFileSync(
    runner,
    "import { runCli } from './src/cli.js'\nprocess.exitCode = await runCli(process.argv.slice(2))\n"
  )
  return runner
}

const baseline: BadInputCase = {
  id: 'baseline-valid-check',
  command: 'check',
  write: (repo) =>
    writeFileSync(
      path.join(repo, 'tazuna.yaml'),
      'spec:\n  manifests:\n    - name: app\n      type: kustomize\n      path: ./app\n'
    ),
  file: 'tazuna.yaml',
  says: /ok/
}

/** A valid kustomize build: the renderer's own footprint, for comparison with failing builds. */
const buildBaseline: BadInputCase = {
  ...baseline,
  id: 'baseline-valid-build',
  command: 'build',
  write: (repo, outside) => {
    baseline.write(repo, outside)
    mkdirSync(path.join(repo, 'app'))
    writeFileSync(path.join(repo, 'app', 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
    writeFileSync(
      path.join(repo, 'app', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: v\n'
    )
  }
}

async function main(): Promise<void> {
  if (!canMeasureMemory) throw new Error('GNU time (/usr/bin/time) is needed to measure memory')
  const all = process.argv.includes('--all')
  const runner = compileCli()
  const cases = [baseline, buildBaseline, ...badInputCases().filter((c) => all || c.heavy === true)]
  const rows: string[] = []
  for (const c of cases) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-rss-'))
    const [repo, outside] = [path.join(dir, 'repo'), path.join(dir, 'outside')]
    mkdirSync(path.join(repo, '.git'), { recursive: true })
    mkdirSync(outside)
    c.write(repo, outside)
    const m = await measure(
      [process.execPath, runner, c.command, '-f', path.join(repo, 'tazuna.yaml')],
      { env: { ...process.env, TMPDIR: dir } }
    )
    rmSync(dir, { recursive: true, force: true })
    const lines = m.stderr.split('\n').filter((l) => l !== '' && !l.includes('check failed for'))
    const cause = (lines[0] ?? m.stdout.trim().split('\n')[0] ?? '')
      .replaceAll(dir, '<tmp>')
      .slice(0, 90)
    rows.push(
      `| ${c.id} | ${c.command} | ${m.code} | ${m.seconds.toFixed(2)} | ${m.maxRssMiB?.toFixed(0) ?? '?'} | ${cause.replaceAll('|', '\\|')} |`
    )
    process.stderr.write(`${rows.at(-1)}\n`)
  }
  process.stdout.write(
    [
      `Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]?.toFixed(1)}`,
      '',
      '| case | command | exit | seconds | peak RSS MiB | first line of the error |',
      '|---|---|---|---|---|---|',
      ...rows,
      ''
    ].join('\n')
  )
  if (existsSync(runner)) rmSync(path.dirname(runner), { recursive: true, force: true })
}

await main()
