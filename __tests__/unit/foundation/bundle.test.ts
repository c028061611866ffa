import { describe, expect, it, beforeAll, afterAll } from '@jest/globals'
import { parse, type ObjectExpression, type Program, type Property } from 'acorn'
import { execFileSync, spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zstdDecompressSync } from 'node:zlib'
import { zstdContentSize } from '../../../src/adapters/render/native-program.js'

// Builds a fresh bundle with the same script as dist/ (never trusts the committed one) and
// starts it the way the runner and a developer do.
const root = join(import.meta.dirname, '..', '..', '..')
let work: string
let out: string
let stats: WebpackStats

/** The part of ncc's webpack stats (`--stats-out`) these tests read. */
interface WebpackStats {
  chunks: { id: number; files: string[] }[]
  modules: StatsModule[]
}
interface StatsModule {
  name?: string
  chunks: number[]
  modules?: StatsModule[]
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tazuna-bundle-'))
  out = join(work, 'dist')
  const statsFile = join(work, 'stats.json')
  execFileSync('bash', [join(root, 'scripts', 'bundle.sh'), out], {
    cwd: root,
    stdio: 'pipe',
    env: { ...process.env, BUNDLE_STATS: statsFile }
  })
  stats = JSON.parse(readFileSync(statsFile, 'utf8')) as WebpackStats
}, 300_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Package names (scope included) of every module ncc put into a chunk of `files`. */
function packagesIn(webpackStats: WebpackStats, files?: (file: string) => boolean): Set<string> {
  const chunks = new Set(
    webpackStats.chunks.filter((c) => !files || c.files.some(files)).map((c) => c.id)
  )
  const names = new Set<string>()
  const visit = (m: StatsModule): void => {
    m.modules?.forEach(visit)
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(m.name ?? '')
    if (match?.[1]) names.add(match[1])
  }
  webpackStats.modules.filter((m) => m.chunks.some((c) => chunks.has(c))).forEach(visit)
  return names
}

/** The package names licenses.txt lists (ncc's format: name, licence, text, blank line). */
function licensedPackages(text: string): Set<string> {
  const entries = text.split(/\n\n(?=(?:@[\w.-]+\/)?[\w.-]+\n[^\n]*\n)/)
  return new Set(entries.map((e) => e.slice(0, e.indexOf('\n'))))
}

/** The chunk files holding @kubernetes/client-node. */
function clientNodeChunks(): string[] {
  return stats.chunks
    .filter((c) => packagesIn({ ...stats, chunks: [c] }).has('@kubernetes/client-node'))
    .flatMap((c) => c.files)
}

/** The webpack module maps of a file: objects whose keys are all module ids (numbers). */
function moduleMapsOf(program: Program): ObjectExpression[] {
  return program.body
    .map((node) => (node.type === 'ExportNamedDeclaration' ? node.declaration : node))
    .flatMap((node) => (node?.type === 'VariableDeclaration' ? node.declarations : []))
    .map((declaration) => declaration.init)
    .filter(
      (init): init is ObjectExpression =>
        init?.type === 'ObjectExpression' &&
        init.properties.length > 0 &&
        init.properties.every(
          (p) =>
            p.type === 'Property' && p.key.type === 'Literal' && typeof p.key.value === 'number'
        )
    )
}

function writeCheckRepository(dir: string): void {
  mkdirSync(join(dir, 'manifests', 'app'), { recursive: true })
  writeFileSync(
    join(dir, 'tazuna.yaml'),
    'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests:\n' +
      '    - name: app\n      type: kustomize\n      path: ./manifests/app\n'
  )
  writeFileSync(join(dir, 'manifests', 'app', 'kustomization.yaml'), 'resources: []\n')
}

describe('the bundle', () => {
  it('is an ES module bundle with its licenses file', () => {
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).toEqual({ type: 'module' })
    expect(readFileSync(join(out, 'licenses.txt'), 'utf8')).toContain('@actions/core')
  })

  // docs/renderers.md: the render module may add at most 42 MB (13.4 MB of WebAssembly, 7.6 MB of
  // native krusty and 19.8 MB of native Helm for Linux x64 and arm64, which validate custom
  // resources as the API server does); the rest keeps its 8 MB.
  it('stays under the dist/ budgets: 8,000,000 bytes, plus 42,000,000 for the render module', () => {
    const sizes = readdirSync(out).map((f) => ({ f, bytes: statSync(join(out, f)).size }))
    const sum = (files: typeof sizes) => files.reduce((total, { bytes }) => total + bytes, 0)
    const renderer = sizes.filter(({ f }) => f.startsWith('render'))
    expect(renderer.map(({ f }) => f).sort()).toEqual([
      'render-helm-linux-arm64.zst',
      'render-helm-linux-x64.zst',
      'render-helm.wasm.br',
      'render-kustomize-linux-arm64.zst',
      'render-kustomize-linux-x64.zst',
      'render-kustomize.wasm.br',
      'render-licenses.txt'
    ])
    expect(sum(renderer)).toBeLessThanOrEqual(42_000_000)
    expect(sum(sizes) - sum(renderer)).toBeLessThanOrEqual(8_000_000)
  })

  it('keeps @kubernetes/client-node out of index.js, which check mode compiles (≤ 1.5 MB)', () => {
    expect(packagesIn(stats, (f) => f === 'index.js').has('@kubernetes/client-node')).toBe(false)
    expect(clientNodeChunks().length).toBeGreaterThan(0)
    expect(statSync(join(out, 'index.js')).size).toBeLessThanOrEqual(1_500_000)
  })

  it('minifies every chunk, not only index.js', () => {
    const chunks = stats.chunks.flatMap((c) => c.files).filter((f) => f.endsWith('.js'))
    expect(chunks.length).toBeGreaterThan(1)
    for (const file of chunks) {
      // ncc's unminified output starts every module with a `/***/` comment line.
      expect({
        file,
        unminified: readFileSync(join(out, file), 'utf8').includes('\n/***/ ')
      }).toEqual({ file, unminified: false })
    }
  })

  // docs/benchmarks.md#eager-module-factories: V8 compiles a parenthesized factory as it parses
  // its file, instead of parsing it twice.
  it('puts every module factory of every file in parentheses', () => {
    const files = stats.chunks.flatMap((c) => c.files).filter((f) => f.endsWith('.js'))
    for (const file of files) {
      const program = parse(readFileSync(join(out, file), 'utf8'), {
        ecmaVersion: 'latest',
        sourceType: 'module',
        preserveParens: true
      })
      const maps = moduleMapsOf(program)
      const values = maps.flatMap((map) => map.properties.map((p) => (p as Property).value.type))
      expect({
        file,
        maps: maps.length > 0,
        bare: values.filter((t) => t !== 'ParenthesizedExpression')
      }).toEqual({ file, maps: true, bare: [] })
    }
  })

  // src/adapters/render/native-program.ts unpacks in one pass only when the frame says its size.
  it('ships native programs whose zstd frames declare their unpacked size', () => {
    const packed = readdirSync(out).filter((f) => f.endsWith('.zst'))
    expect(packed.length).toBeGreaterThan(0)
    for (const file of packed) {
      const bytes = readFileSync(join(out, file))
      expect({ file, size: zstdContentSize(bytes) }).toEqual({
        file,
        size: zstdDecompressSync(bytes).length
      })
    }
  })

  it('stamps the build identity render records use: the same for the same files, new for any change', () => {
    const id = readFileSync(join(out, 'build-id.txt'), 'utf8')
    expect(id).toMatch(/^[0-9a-f]{64}\n$/)
    const copy = join(work, 'stamped')
    cpSync(out, copy, { recursive: true })
    const stamp = () => {
      execFileSync('node', [join(root, 'scripts', 'stamp-build.mjs'), copy])
      return readFileSync(join(copy, 'build-id.txt'), 'utf8')
    }
    expect(stamp()).toBe(id)
    writeFileSync(join(copy, 'cli.js'), `${readFileSync(join(copy, 'cli.js'), 'utf8')}\n`)
    expect(stamp()).not.toBe(id)
  })

  it('lists in licenses.txt exactly the packages whose code is in some chunk', () => {
    const licensed = licensedPackages(readFileSync(join(out, 'licenses.txt'), 'utf8'))
    // ncc's webpack runtime is in every file without being a module of the stats.
    const bundled = new Set([...packagesIn(stats), '@vercel/ncc'])
    expect([...licensed].sort()).toEqual([...bundled].sort())
    expect(licensed).toContain('@kubernetes/client-node')
    expect(licensed).toContain('@actions/core')
  })

  it('runs check mode, and a plain kubeconfig, without the client-node chunk', () => {
    const copy = join(work, 'without-client-node')
    cpSync(out, copy, { recursive: true })
    for (const file of clientNodeChunks()) rmSync(join(copy, file))
    const repo = join(work, 'check-repo')
    writeCheckRepository(repo)
    // RUNNER_TEMP as the runner sets it: the report files go there, not to the system temp dir.
    const env = { PATH: process.env.PATH, HOME: work, GITHUB_WORKSPACE: repo, RUNNER_TEMP: work }
    const check = spawnSync(process.execPath, [join(copy, 'index.js')], {
      cwd: repo,
      env: { ...env, GITHUB_EVENT_NAME: 'push', INPUT_MODE: 'check', INPUT_CONFIG: 'tazuna.yaml' },
      encoding: 'utf8'
    })
    expect({ status: check.status, stdout: check.stdout }).toEqual({
      status: 0,
      stdout: expect.stringContaining('tazuna check: ok')
    })
    // A token kubeconfig is read without client-node (src/adapters/kube/plain-kubeconfig.ts): the
    // run gets as far as the server (nothing listens on port 9); an exec plugin needs the chunk.
    const kubeconfig = (user: string) => {
      const file = join(work, `kubeconfig-${user.length}`)
      writeFileSync(
        file,
        'current-context: x\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\n' +
          `users: [{name: u, user: ${user}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n`
      )
      return file
    }
    const list = (file: string) =>
      spawnSync(process.execPath, [join(copy, 'cli.js'), 'state', 'list'], {
        cwd: repo,
        env: { ...env, KUBECONFIG: file },
        encoding: 'utf8'
      })
    const plain = list(kubeconfig('{token: t}'))
    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain('ECONNREFUSED')
    const exec = list(
      kubeconfig('{exec: {command: x, apiVersion: client.authentication.k8s.io/v1}}')
    )
    expect(exec.status).toBe(1)
    expect(exec.stderr).toContain(clientNodeChunks()[0])
  })

  it('starts under Node 24 as the runner starts it and reports a wrong input by name', () => {
    const r = spawnSync(process.execPath, [join(out, 'index.js')], {
      env: { PATH: process.env.PATH, INPUT_MODE: 'nonsense', GITHUB_EVENT_NAME: 'push' },
      encoding: 'utf8'
    })
    expect(process.versions.node.split('.')[0]).toBe('24')
    expect(r.stdout).toMatch(/::error::.*mode/)
    expect(r.status).toBe(1)
  })

  it('serves the command line from the same bundle', () => {
    const r = spawnSync(process.execPath, [join(out, 'cli.js'), 'no-such-command'], {
      encoding: 'utf8'
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^error: /)
  })
})
