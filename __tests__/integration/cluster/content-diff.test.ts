// Content diffs end to end below the action's entry: real git repositories with a base and a
// head commit, the base rendered in a temporary worktree (real git, real kustomize), State
// applied on the real API server, and the comment rendered from the result.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from '@jest/globals'
import { processEnginePorts } from '../../../src/adapters/engine-ports.js'
import { FIELD_MANAGER } from '../../../src/adapters/kube/cluster.js'
import { BaseUnavailableError, renderAtCommit } from '../../../src/engine/base-render.js'
import { diffWithContent } from '../../../src/engine/content-diff.js'
import { createEngine, type Engine } from '../../../src/engine/engine.js'
import type { EnginePorts } from '../../../src/engine/ports.js'
import { renderComment } from '../../../src/report/comment.js'
import type { ObjectContentDiff } from '../../../src/report/content-diff.js'
import { adminKubeconfig, adminSession } from '../../support/cluster.js'
import { commitAll, commitNext } from '../../support/git-repo.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../../support/fixture-repo.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { fingerprint, TEST_FINGERPRINT_KEY } from '../../support/secret-fingerprint.js'
import { balanceOf, wellFormed } from '../../unit/report/well-formed.js'

let templateWasm: string
let renderEnv: Record<string, string>
beforeAll(() => {
  templateWasm = goTemplateEngineFiles().wasm
  renderEnv = renderModuleEnv()
}, 300_000)

const secretValue = 'planted-db-password-51c0'

function ports(): EnginePorts {
  return processEnginePorts({
    env: {
      ...process.env,
      KUBECONFIG: adminKubeconfig(),
      TAZUNA_GOTEMPLATE_WASM: templateWasm,
      ...renderEnv
    },
    codeDir: '',
    log: { info: () => undefined, warn: () => undefined }
  })
}

function engineAt(file: string, p = ports()): Engine {
  return createEngine({ file, environment: '', tags: [], version: '0.1.0' }, p)
}

async function applyAt(repo: FixtureRepo, commit: string): Promise<void> {
  const engine = engineAt(join(repo.dir, 'tazuna.yaml'))
  try {
    const { run } = await engine.check()
    const log = { info: () => undefined, warn: () => undefined }
    const outcome = await engine.apply(run!, {
      sync: true,
      prune: false,
      atomic: false,
      gitCommitHash: commit,
      log
    })
    expect(outcome.failure).toBeUndefined()
  } finally {
    engine.close()
  }
}

/** The pull request's Diff with content diffs from `baseSha`, checked out at `workspace`. */
async function contentDiff(workspace: string, baseSha: string, notices: string[] = []) {
  const p = ports()
  const engine = engineAt(join(workspace, 'tazuna.yaml'), p)
  try {
    const { run } = await engine.check()
    return await diffWithContent(engine, run!, {
      before: {
        source: 'base',
        baseSha,
        render: () =>
          renderAtCommit(
            baseSha,
            { workspace, config: 'tazuna.yaml' },
            {
              runner: p.runner,
              makeTempDir: (prefix) => p.files.makeTempDir(prefix),
              engineFor: (file) => engineAt(file, p)
            }
          )
      },
      now: () => Date.now(),
      notice: (message) => notices.push(message),
      fingerprintKey: TEST_FINGERPRINT_KEY
    })
  } finally {
    engine.close()
  }
}

const write = (repo: FixtureRepo, path: string, text: string): void => {
  mkdirSync(join(repo.dir, path, '..'), { recursive: true })
  writeFileSync(join(repo.dir, path), text)
}

const secretYaml = (password: string): string =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\nstringData:\n  user: app\n  password: ${password}\n`

function withSecret(repo: FixtureRepo, password: string): void {
  write(repo, 'manifests/config/secret.yaml', secretYaml(password))
  write(
    repo,
    'manifests/config/kustomization.yaml',
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - settings.yaml\n  - secret.yaml\n'
  )
}

const byName = (diffs: readonly ObjectContentDiff[], suffix: string): ObjectContentDiff => {
  const found = diffs.find((d) => d.key.endsWith(suffix))
  if (found === undefined) throw new Error(`no content diff for ${suffix}`)
  return found
}
const changes = (d: ObjectContentDiff): string[] => d.lines.filter((l) => /^[-+]/.test(l))

describe('content diffs from the base commit', () => {
  it('show deployed → proposed for a changed value, an added key, added and removed objects and a Secret', async () => {
    const repo = writeFixtureRepo()
    withSecret(repo, 'first-password-0a1b')
    const base = commitAll(repo.dir, 'base')
    await applyAt(repo, base)

    writeConfig(repo, 'bonjour')
    write(
      repo,
      'manifests/config/settings.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  GREETING: bonjour\n  COLOR: blue\n---\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  README.md: |\n    ```sh\n    make\n    ```\n    <details><summary>x</summary>\n'
    )
    withSecret(repo, secretValue)
    write(
      repo,
      'manifests/web/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n'
    )
    commitNext(repo.dir, 'head')

    const { manifests, content } = await contentDiff(repo.dir, base)
    const diffs = content!.diffs
    expect(diffs.map((d) => d.relation)).toEqual(diffs.map(() => 'deployed'))
    expect(changes(byName(diffs, '/ConfigMap/' + repo.namespace + '/settings'))).toEqual([
      '-  GREETING: hello',
      '+  COLOR: blue',
      '+  GREETING: bonjour'
    ])
    const secret = changes(byName(diffs, '/Secret/' + repo.namespace + '/db'))
    expect(secret).toEqual([
      `-  password: ${fingerprint('first-password-0a1b')}`,
      `+  password: ${fingerprint(secretValue)}`
    ])
    const notes = byName(diffs, '/ConfigMap/' + repo.namespace + '/notes')
    expect(notes.type).toBe('added')
    const service = byName(diffs, '/Service/' + repo.namespace + '/web')
    expect(service.type).toBe('removed')
    expect(service.lines.slice(1).every((l) => l.startsWith('-'))).toBe(true)

    const { markdown } = renderComment({
      config: 'tazuna.yaml',
      environment: '',
      sha: 'head',
      manifests,
      problems: [],
      content: content!
    })
    expect(balanceOf(markdown)).toEqual(wellFormed)
    expect(markdown).toContain('**deployed → proposed**')
    expect(markdown).not.toContain(secretValue)
    expect(markdown).not.toContain('first-password-0a1b')
    expect(content!.timings!.headMs).toBeGreaterThan(0)
  })

  it('show every object as added when the base commit has no tazuna.yaml (the pull request adding it)', async () => {
    const repo = writeFixtureRepo()
    const config = readFileSync(join(repo.dir, 'tazuna.yaml'), 'utf8')
    rmSync(join(repo.dir, 'tazuna.yaml'))
    const base = commitAll(repo.dir, 'before the deploy configuration')
    writeFileSync(join(repo.dir, 'tazuna.yaml'), config)
    commitNext(repo.dir, 'add the deploy configuration')

    const notices: string[] = []
    const result = await contentDiff(repo.dir, base, notices)
    expect(notices).toEqual([])
    const diffs = result.content!.diffs
    expect(diffs.length).toBeGreaterThan(0)
    for (const d of diffs) {
      expect(d.lines.filter((l) => l.startsWith('-'))).toEqual([])
      expect(d.lines.some((l) => l.startsWith('+'))).toBe(true)
    }
    expect(changes(byName(diffs, '/settings'))).toContain('+  GREETING: hello')
  })

  it('flag exactly the entries whose base render differs from State (apply A, push B, PR C)', async () => {
    const repo = writeFixtureRepo()
    const a = commitAll(repo.dir, 'A')
    await applyAt(repo, a)
    writeConfig(repo, 'from-b')
    write(
      repo,
      'manifests/worker/deployment.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\nspec:\n  replicas: 4\n  selector:\n    matchLabels: {app: worker}\n  template:\n    metadata:\n      labels: {app: worker}\n    spec:\n      containers:\n        - name: worker\n          image: registry.example/worker:2.0\n'
    )
    const b = commitNext(repo.dir, 'B (pushed, not applied)')
    writeConfig(repo, 'from-c')
    commitNext(repo.dir, 'C (the pull request)')

    const { content } = await contentDiff(repo.dir, b)
    const diffs = content!.diffs
    expect(diffs.map((d) => [d.key.split('/').slice(-1)[0], d.relation])).toEqual([
      ['settings', 'base-differs'],
      ['worker', 'not-applied']
    ])
    expect(changes(byName(diffs, '/settings'))).toEqual([
      '-  GREETING: from-b',
      '+  GREETING: from-c'
    ])
    expect(byName(diffs, '/worker').lines).toEqual([])
  })
})

/** The Diff with live content diffs, as the admin (dry-run apply needs patch). */
async function liveDiff(workspace: string) {
  const engine = engineAt(join(workspace, 'tazuna.yaml'))
  try {
    const { run } = await engine.check()
    return await diffWithContent(engine, run!, {
      before: { source: 'live' },
      now: () => Date.now(),
      notice: (message) => {
        throw new Error(`unexpected notice: ${message}`)
      },
      fingerprintKey: TEST_FINGERPRINT_KEY
    })
  } finally {
    engine.close()
  }
}

describe('content diffs from the live objects', () => {
  it('show only the real change of a Deployment the server filled with defaults, and write nothing', async () => {
    const repo = writeFixtureRepo()
    const base = commitAll(repo.dir, 'base')
    await applyAt(repo, base)
    const webFile = join(repo.dir, 'manifests/web/deployment.yaml')
    const original = readFileSync(webFile, 'utf8')
    writeFileSync(webFile, original.replace('replicas: 2', 'replicas: 3'))
    commitNext(repo.dir, 'head')

    const session = await adminSession()
    const deploymentRef = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: repo.namespace,
      name: 'web'
    }
    const versions = async () => ({
      web: (await session.cluster.get(deploymentRef))!.metadata,
      state: await Promise.all(
        Object.values(repo.manifests).map(
          async (m) =>
            (await session.cluster.get({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              namespace: 'tazuna',
              name: `tazuna-state-${m}`
            }))!.metadata
        )
      )
    })
    const rv = (m: unknown) => (m as { resourceVersion: string }).resourceVersion
    const ours = (m: unknown) => {
      const meta = m as { generation: number; managedFields: { manager: string }[] }
      return {
        generation: meta.generation,
        fields: meta.managedFields.filter((f) => f.manager === FIELD_MANAGER)
      }
    }
    const before = await versions()
    try {
      const live = await liveDiff(repo.dir)
      const web = byName(live.content!.diffs, '/Deployment/' + repo.namespace + '/web')
      expect(web.relation).toBe('live')
      expect(changes(web)).toEqual(['-  replicas: 2', '+  replicas: 3'])
      // The live object carries defaults (strategy, revisionHistoryLimit, ...) on both sides.
      expect(web.lines.join('\n')).not.toMatch(/managedFields|resourceVersion|uid:|status:/)

      const fromBase = await contentDiff(repo.dir, base)
      const baseWeb = byName(fromBase.content!.diffs, '/Deployment/' + repo.namespace + '/web')
      expect(changes(baseWeb)).toEqual(['-  replicas: 2', '+  replicas: 3'])
      expect(baseWeb.lines.join('\n')).not.toMatch(/revisionHistoryLimit|progressDeadlineSeconds/)

      const after = await versions()
      // The cluster's Deployment controller writes the object meanwhile (its status, its
      // revision annotation), so its resourceVersion moves on its own: a write of ours would
      // change its generation or what the field manager `tazuna` owns.
      expect(ours(after.web)).toEqual(ours(before.web))
      expect(after.state.map(rv)).toEqual(before.state.map(rv))
      expect((await session.cluster.get(deploymentRef))!.spec).toMatchObject({ replicas: 2 })
    } finally {
      session.close()
    }
  })
})

describe('the base commit of a shallow clone', () => {
  it('is fetched from origin; without access the Diff falls back to hashes with one notice', async () => {
    const repo = writeFixtureRepo()
    const base = commitAll(repo.dir, 'base')
    await applyAt(repo, base)
    writeConfig(repo, 'shallow')
    commitNext(repo.dir, 'head')
    const clone = join(mkdtempSync(join(tmpdir(), 'tazuna-clone-')), 'repo')
    try {
      execFileSync('git', ['clone', '-q', '--depth=1', `file://${repo.dir}`, clone])
      expect(() =>
        execFileSync('git', ['cat-file', '-e', `${base}^{commit}`], { cwd: clone, stdio: 'pipe' })
      ).toThrow()
      const fetched = await contentDiff(clone, base)
      expect(changes(byName(fetched.content!.diffs, '/settings'))).toEqual([
        '-  GREETING: hello',
        '+  GREETING: shallow'
      ])

      const other = join(mkdtempSync(join(tmpdir(), 'tazuna-clone-')), 'repo')
      execFileSync('git', ['clone', '-q', '--depth=1', `file://${repo.dir}`, other])
      execFileSync('git', ['remote', 'set-url', 'origin', 'file:///nonexistent/tazuna-origin'], {
        cwd: other
      })
      const notices: string[] = []
      const fallback = await contentDiff(other, base, notices)
      expect(notices).toHaveLength(1)
      expect(notices[0]).toMatch(
        /^No content diffs: the base commit could not be rendered \(git fetch --no-tags --depth=1 origin [0-9a-f]{40} failed \(exit 128\): .*\)\. The Diff shows hashes only\.$/
      )
      expect(fallback.content!.diffs).toEqual([])
      expect(fallback.manifests.flatMap((m) => m.entries).map((e) => e.type)).toEqual(['modified'])
      rmSync(other, { recursive: true, force: true })
    } finally {
      rmSync(clone, { recursive: true, force: true })
    }
  })

  it('is refused with a reason for a sha that is not one', async () => {
    await expect(
      renderAtCommit(
        'main',
        { workspace: tmpdir(), config: 'tazuna.yaml' },
        {
          runner: ports().runner,
          makeTempDir: () => Promise.reject(new Error('unused')),
          engineFor: () => {
            throw new Error('unused')
          }
        }
      )
    ).rejects.toThrow(BaseUnavailableError)
  })
})
