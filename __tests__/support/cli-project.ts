// Runs one CLI command through src/cli.ts on the test API server (via __tests__/support/cli.ts),
// writes small kustomize projects, and edits objects as another field manager would.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { CliCommand, CommandContext } from '../../src/cli.js'
import { runCliInProcess, type CliResult } from './cli.js'
import type { JsonObject } from '../../src/go/yaml.js'
import type { KubeSession } from '../../src/adapters/kube/session.js'

/** A command's exit code and output. */
export type Output = CliResult

/** What {@link runCommand} may change from the defaults (admin kubeconfig, no tags). */
export interface RunOptions {
  options?: CommandContext['options']
  env?: Record<string, string | undefined>
  tags?: string[]
  /** Lines answered to a prompt; none means stdin ends at once (EOF). */
  stdin?: string
  /** stdout is a terminal (colour unless NO_COLOR). */
  tty?: boolean
}

/**
 * Runs `tazuna-action <command> -f <file>` in-process (src/cli.ts's runCli), with the command's
 * own options as flags (`{ force: true }` → `--force`).
 */
export async function runCommand(
  command: CliCommand,
  file: string,
  run: RunOptions = {}
): Promise<Output> {
  const flags = Object.entries(run.options ?? {}).flatMap(([name, value]) =>
    value === true ? [`--${name}`] : typeof value === 'string' ? [`--${name}`, value] : []
  )
  const tags = run.tags === undefined || run.tags.length === 0 ? [] : ['-t', run.tags.join(',')]
  return runCliInProcess(
    [...command.name.split(' '), '-f', file, ...tags, ...flags],
    {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      ...(run.env ?? { KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG })
    },
    run.stdin,
    run.tty
  )
}

/** One kustomize manifest of a project: its objects and tags. */
export interface ProjectManifest {
  name: string
  objects: JsonObject[]
  tags?: string[]
}

/** Writes tazuna.yaml with one kustomize manifest (folder `./<name>`) per entry. */
export function writeProject(dir: string, manifests: readonly ProjectManifest[]): string {
  const lines = ['spec:', '  manifests:']
  for (const m of manifests) {
    const base = path.join(dir, m.name)
    mkdirSync(base, { recursive: true })
    writeFileSync(
      path.join(base, 'objects.yaml'),
      m.objects.map((o) => JSON.stringify(o)).join('\n---\n') + '\n'
    )
    writeFileSync(path.join(base, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
    lines.push(`    - name: ${m.name}`, '      type: kustomize', `      path: ./${m.name}`)
    if (m.tags !== undefined) lines.push(`      tags: [${m.tags.join(', ')}]`)
  }
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

/** A merge patch sent as field manager `manager` (what `kubectl edit` or `scale` does). */
export async function patchAs(
  session: KubeSession,
  manager: string,
  resourcePath: string,
  patch: JsonObject
): Promise<void> {
  const res = await session.client.request(
    {
      method: 'PATCH',
      path: resourcePath,
      query: { fieldManager: manager },
      body: patch,
      contentType: 'application/merge-patch+json'
    },
    `patch ${resourcePath}`
  )
  if (res.status >= 300) throw new Error(`patch ${resourcePath}: ${res.status} ${res.body}`)
}

/**
 * A Deployment of one container whose image never pulls: on the test cluster's kwok Nodes its
 * Pods wait in ImagePullBackOff (label `tazuna.test/failure`, __tests__/cluster/README.md#failing-pods),
 * so it is never Ready. With `pods: 'run'` its Pods run and become Ready.
 */
export function deployment(
  ns: string,
  name: string,
  replicas: number,
  pods: 'never-pull' | 'run' = 'never-pull'
): JsonObject {
  const labels = { app: name }
  const podLabels =
    pods === 'run' ? labels : { ...labels, 'tazuna.test/failure': 'image-pull-backoff' }
  const image = pods === 'run' ? 'registry.invalid/app:1' : 'registry.invalid/never-pulls:1'
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: podLabels },
        spec: { containers: [{ name: 'app', image }] }
      }
    }
  }
}
