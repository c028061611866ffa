/**
 * Files the action writes under RUNNER_TEMP: the report (report.json + report.txt) and, when
 * the kubeconfig input holds the file's text, a private kubeconfig file.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Writes report.json, report.txt and, with content diffs, report.diff into a fresh directory;
 * returns report.json's path.
 */
export function writeReportFiles(
  runnerTemp: string | undefined,
  report: { json: string; text: string; diff?: string }
): string {
  const dir = mkdtempSync(join(tempRoot(runnerTemp), 'tazuna-report-'))
  writeFileSync(join(dir, 'report.json'), report.json)
  writeFileSync(join(dir, 'report.txt'), report.text)
  if (report.diff !== undefined) writeFileSync(join(dir, 'report.diff'), report.diff)
  return join(dir, 'report.json')
}

/** Writes kubeconfig text to a new file readable only by the runner's user (0600). */
export function writeKubeconfigFile(runnerTemp: string | undefined, content: string): string {
  const dir = mkdtempSync(join(tempRoot(runnerTemp), 'tazuna-kubeconfig-'))
  const path = join(dir, 'kubeconfig')
  writeFileSync(path, content, { mode: 0o600 })
  chmodSync(path, 0o600)
  return path
}

const tempRoot = (runnerTemp: string | undefined): string =>
  runnerTemp === undefined || runnerTemp === '' ? tmpdir() : runnerTemp
