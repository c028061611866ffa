// Real chart sources on loopback for the chart download tests
// (integration/render/chart-sources.test.ts): an OCI registry (go-containerregistry's registry
// package behind optional basic or bearer auth, __tests__/registry/), an HTTP chart repository
// (a static file server over a directory made by `helm package` and `helm repo index`), and
// the real helm to package and push charts, with its config, cache and registry logins kept in
// a private directory so nothing reaches $HOME.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const registrySources = fileURLToPath(new URL('../registry/', import.meta.url))

/** Builds (once per source and Go version, cached) the test registry and returns its path. */
export function buildTestRegistry(): string {
  return execFileSync('bash', [path.join(registrySources, 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  }).trim()
}

/** A running test registry: `address` is host:port on 127.0.0.1. */
export interface TestRegistry {
  address: string
  stop: () => Promise<void>
}

/** Who may use a test server. */
export type TestAuth =
  { kind: 'none' } | { kind: 'basic' | 'bearer'; username: string; password: string }

/** Starts the test registry binary and waits for the address it prints. */
export async function startTestRegistry(binary: string, auth: TestAuth): Promise<TestRegistry> {
  const args = ['-auth', auth.kind]
  const env = { ...process.env }
  if (auth.kind !== 'none') {
    args.push('-user', auth.username)
    env.TEST_REGISTRY_PASSWORD = auth.password
  }
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const lines = createInterface({ input: child.stdout })
  const address = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`test registry exited (${code}): ${stderr}`)))
    child.once('error', reject)
  })
  lines.close()
  return { address, stop: () => stopChild(child) }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** A running static chart repository. `requests` records each request's path and whether it carried credentials. */
export interface ChartRepositoryServer {
  url: string
  requests: { path: string; authorized: boolean }[]
  stop: () => Promise<void>
}

/** Serves the files of `dir` at http://127.0.0.1:<port>/<prefix>/, behind basic auth when asked. */
export async function startChartRepository(
  dir: string,
  options: { auth?: TestAuth; prefix?: string } = {}
): Promise<ChartRepositoryServer> {
  const auth = options.auth ?? { kind: 'none' }
  const prefix = `/${options.prefix ?? 'charts'}/`
  const requests: ChartRepositoryServer['requests'] = []
  const expected =
    auth.kind === 'none'
      ? undefined
      : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    requests.push({ path: urlPath, authorized: req.headers.authorization !== undefined })
    if (expected !== undefined && req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="charts"' }).end('unauthorized\n')
      return
    }
    const file = path.join(dir, path.normalize(urlPath.slice(prefix.length)))
    if (!urlPath.startsWith(prefix) || !file.startsWith(dir + path.sep) || !isFile(file)) {
      res.writeHead(404).end('not found\n')
      return
    }
    const type = file.endsWith('.yaml') ? 'application/x-yaml' : 'application/gzip'
    res.writeHead(200, { 'Content-Type': type }).end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    stop: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

/** Helm's environment with every config, cache and data path inside `home`. */
export function privateHelmEnv(home: string): Record<string, string> {
  return {
    HELM_CACHE_HOME: path.join(home, 'cache'),
    HELM_CONFIG_HOME: path.join(home, 'config'),
    HELM_DATA_HOME: path.join(home, 'data'),
    HELM_REGISTRY_CONFIG: path.join(home, 'config', 'registry.json'),
    HELM_REPOSITORY_CONFIG: path.join(home, 'config', 'repositories.yaml'),
    HELM_REPOSITORY_CACHE: path.join(home, 'cache', 'repository'),
    DOCKER_CONFIG: path.join(home, 'docker')
  }
}

/** Runs helm with the private environment; returns stdout+stderr, throws with them on failure. */
export function runHelm(
  helm: string,
  args: readonly string[],
  options: { home: string; cwd?: string; input?: string }
): string {
  try {
    return execFileSync(helm, args, {
      cwd: options.cwd,
      input: options.input,
      env: { ...process.env, ...privateHelmEnv(options.home) },
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe']
    })
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string }
    throw new Error(
      `helm ${args[0]} failed (exit ${e.status}): ${e.stdout ?? ''}${e.stderr ?? ''}`,
      {
        cause: err
      }
    )
  }
}

/**
 * Runs helm like runHelm but without blocking the event loop, for commands that talk to a
 * server living in the test process (the chart repository).
 */
export async function runHelmAsync(
  helm: string,
  args: readonly string[],
  options: { home: string }
): Promise<{ exitCode: number; output: string }> {
  const child = spawn(helm, args, {
    env: { ...process.env, ...privateHelmEnv(options.home) },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve(code ?? -1))
  })
  return { exitCode, output }
}

/** Pushes a packaged chart with `helm push --plain-http`; returns the manifest digest it reports. */
export function pushChart(
  helm: string,
  archive: string,
  registry: string,
  options: { home: string; auth: TestAuth }
): string {
  const args = ['push', archive, `oci://${registry}/charts`, '--plain-http']
  if (options.auth.kind !== 'none') {
    args.push('--username', options.auth.username, '--password', options.auth.password)
  }
  const result = spawnSync(helm, args, {
    env: { ...process.env, ...privateHelmEnv(options.home) },
    encoding: 'utf8'
  })
  const output = `${result.stdout}${result.stderr}`
  const digest = /^Digest: (sha256:[0-9a-f]{64})$/m.exec(output)?.[1]
  if (result.status !== 0 || digest === undefined) {
    throw new Error(`helm push ${archive} failed (exit ${result.status}): ${output}`)
  }
  return digest
}
