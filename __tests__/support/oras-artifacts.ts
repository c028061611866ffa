// `type: oras` artifacts for tests: pushed to the test registry (registry/) by the real oras CLI
// (built from the Go module proxy by scripts/build-tools.sh), as a team publishes a bundle:
// a gzip-compressed tar of a directory as the one layer. And a loopback proxy in front of a
// registry that records every request, to count what a pull asked for.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { resolveToolPaths } from '../cluster/tool-paths.js'
import type { TestAuth } from './chart-servers.js'

/** The oras CLI: ORAS_BIN, else the path scripts/build-tools.sh recorded. */
export function orasBin(): string {
  return process.env.ORAS_BIN || resolveToolPaths().oras
}

/** The layer media type of a gzip-compressed tar (Tazuna reads the layer as tar+gzip). */
/**
 * `tar` (uncompressed) with its first entry's size field set to `bytes` in GNU base-256 form
 * and the header checksum recomputed: a size tar itself would not write for a small file.
 */
export function withDeclaredSize(tar: Buffer, bytes: number): Buffer {
  const out = Buffer.from(tar)
  const size = Buffer.alloc(12)
  size[0] = 0x80
  size.writeUIntBE(bytes, 6, 6)
  size.copy(out, 124)
  out.fill(0x20, 148, 156)
  let sum = 0
  for (let i = 0; i < 512; i++) sum += out[i]!
  out.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1')
  return out
}

export const TAR_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip'

/** `tar -czf` of the whole of `dir` (entries `./...`, as a team would pack it). */
export function tarGzOf(dir: string): Buffer {
  return execFileSync('tar', ['-czf', '-', '-C', dir, '.'])
}

/**
 * Pushes `layer` (the bytes of a .tar.gz) as `<registry>/<repository>:<tag>` with
 * `oras push --plain-http`; returns the manifest digest oras reports.
 */
export function pushArtifact(
  registry: string,
  reference: string,
  layer: Uint8Array,
  auth: TestAuth = { kind: 'none' }
): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-oras-push-'))
  writeFileSync(path.join(dir, 'bundle.tar.gz'), layer)
  return orasPush(dir, [`${registry}/${reference}`, `bundle.tar.gz:${TAR_GZIP}`], auth)
}

/**
 * Pushes the directory `name` below `parent` as oras itself packs one (a tar+gzip layer made
 * by Go's archive/tar, entries below `name/`); returns the manifest digest.
 */
export function pushDirectory(
  registry: string,
  reference: string,
  parent: string,
  name: string
): string {
  return orasPush(parent, [`${registry}/${reference}`, name], { kind: 'none' })
}

function orasPush(dir: string, refAndFiles: string[], auth: TestAuth): string {
  const args = ['push', '--plain-http', ...refAndFiles]
  if (auth.kind !== 'none') args.push('--username', auth.username, '--password-stdin')
  let output: string
  try {
    output = execFileSync(orasBin(), args, {
      cwd: dir,
      // oras keeps nothing in the user's Docker config: a private one per push.
      env: { ...process.env, DOCKER_CONFIG: path.join(dir, '.docker-config') },
      input: auth.kind === 'none' ? '' : auth.password,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe']
    })
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string }
    throw new Error(
      `oras push ${refAndFiles.join(' ')} failed (exit ${e.status}): ${e.stdout}${e.stderr}`,
      {
        cause: error
      }
    )
  }
  const digest = /^Digest: (sha256:[0-9a-f]{64})$/m.exec(output)?.[1]
  if (digest === undefined) throw new Error(`oras push printed no digest: ${output}`)
  return digest
}

/** A recording proxy: `address` (host:port) forwards to `target`. */
export interface CountingProxy {
  address: string
  /** `METHOD /path` of every request so far. */
  requests: string[]
  stop: () => Promise<void>
}

/**
 * Starts a loopback proxy to the registry at `target` (host:port) that records requests; with
 * `tls` it speaks https with that key and certificate.
 */
export async function startCountingProxy(
  target: string,
  tls?: { key: string; cert: string }
): Promise<CountingProxy> {
  const [host, port] = target.split(':') as [string, string]
  const requests: string[] = []
  const handler: http.RequestListener = (req, res) => {
    requests.push(`${req.method} ${req.url}`)
    const upstream = http.request(
      { host, port: Number(port), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  }
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port: own } = server.address() as { port: number }
  return {
    address: `127.0.0.1:${own}`,
    requests,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A self-signed certificate for 127.0.0.1 made by openssl (key and certificate, PEM). */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-oras-tls-'))
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')]
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert
    ],
    { stdio: 'ignore' }
  )
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') }
}
