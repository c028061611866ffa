// The review of the API and schema checks as a user runs it (docs/risks.md#apis-on-their-way-out):
// `state diff --content` (`--content=live` in live mode) over a working tree that adds objects to
// a base commit, and the risk lines it prints. Shared by the API review tests on the shared test
// cluster (integration/cluster/api-review.test.ts) and on API servers of their own.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { JsonObject } from '../../src/go/yaml.js'
import { runCliInProcess, type CliResult } from './cli.js'
import { writeProject } from './cli-project.js'
import { uniqueName } from './cluster.js'
import { commitAll } from './git-repo.js'

/**
 * `state diff --content` (`--content=live` with `live`) as `kubeconfig`'s user, over a base
 * commit of one manifest of `base` and a working tree that adds `added` to it.
 */
export async function reviewAdding(
  base: readonly JsonObject[],
  added: readonly JsonObject[],
  { kubeconfig, live = false }: { kubeconfig: string; live?: boolean }
): Promise<CliResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-review-'))
  const app = uniqueName('app')
  writeProject(dir, [{ name: app, objects: [...base] }])
  commitAll(dir, 'base')
  const file = writeProject(dir, [{ name: app, objects: [...base, ...added] }])
  return runCliInProcess(['state', 'diff', live ? '--content=live' : '--content', '-f', file], {
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
    KUBECONFIG: kubeconfig
  })
}

/** The finding lines of `state diff --content`'s output (`#   <kind> <manifest>: …`). */
export const riskLines = (stdout: string): string[] =>
  stdout.split('\n').filter((l) => l.startsWith('#   '))

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
