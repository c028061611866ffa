// Runs one CLI command the way src/cli.ts does (a thrown error becomes `error: ...` and exit
// code 1), on a real engine over the test API server, with its output captured. Also writes
// small kustomize projects and edits objects as another field manager would.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createCliEngine, type CliCommand, type CommandContext } from '../../../src/cli.js'
import { createGoTemplateEngine } from '../../../src/go/template/wasm-engine.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import type { KubeSession } from '../../../src/adapters/kube-session.js'

/** A command's exit code and output. */
export interface Output {
  code: number
  stdout: string
  stderr: string
}

/** What {@link runCommand} may change from the defaults (admin kubeconfig, no tags). */
export interface RunOptions {
  options?: CommandContext['options']
  env?: Record<string, string | undefined>
  tags?: string[]
  /** Lines answered to a prompt; none means stdin ends at once (EOF). */
  stdin?: string
}

/** Runs `command` against tazuna.yaml `file`. */
export async function runCommand(
  command: CliCommand,
  file: string,
  run: RunOptions = {}
): Promise<Output> {
  const out = { stdout: '', stderr: '' }
  const flags = { filePath: file, environment: '', tags: run.tags ?? [], logLevel: 'info' }
  const io: CommandContext['io'] = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    env: {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      ...(run.env ?? { KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG })
    },
    readLine: () => {
      const line = run.stdin
      return line?.includes('\n') ? Promise.resolve(line) : Promise.reject(new Error('EOF'))
    }
  }
  const templates = createGoTemplateEngine(() => {
    throw new Error('these fixtures use no templates')
  })
  const engine = createCliEngine(flags, io, { templates })
  try {
    return {
      code: await command.run({ flags, options: run.options ?? {}, args: [], io, engine }),
      ...out
    }
  } catch (error) {
    return {
      code: 1,
      stdout: out.stdout,
      stderr: out.stderr + `error: ${(error as Error).message}\n`
    }
  } finally {
    engine.close()
  }
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

/** A Deployment of one container whose image never pulls (no kubelet here: never Ready). */
export function deployment(ns: string, name: string, replicas: number): JsonObject {
  const labels = { app: name }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: 'registry.invalid/never-pulls:1' }] }
      }
    }
  }
}
