/**
 * What the kube client's connections depend on (CA, client certificate, server name): fixed for
 * a run unless an exec plugin rotates a client certificate, so one agent or HTTP/2 session is
 * reused for as long as it stays the same.
 */
import type https from 'node:https'
import tls from 'node:tls'

/** What a keep-alive agent's TLS connections depend on. */
export interface TlsMaterial {
  isHttps: boolean
  ca: https.RequestOptions['ca']
  cert: https.RequestOptions['cert']
  key: https.RequestOptions['key']
  pfx: https.RequestOptions['pfx']
  passphrase: string | undefined
  servername: string | undefined
  rejectUnauthorized: boolean | undefined
}

export function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  return (Object.keys(a) as (keyof TlsMaterial)[]).every((k) => sameValue(a[k], b[k]))
}

// Identical objects first (static credentials reuse one set); otherwise byte comparison of
// Buffers, element-wise for arrays — never a serialisation of the material.
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b)
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
  }
  return false
}

/** The TLS material of request options, as sameTls compares it. */
export function tlsMaterialOf(opts: https.RequestOptions, isHttps: boolean): TlsMaterial {
  return {
    isHttps,
    ca: opts.ca,
    cert: opts.cert,
    key: opts.key,
    pfx: opts.pfx,
    passphrase: opts.passphrase,
    servername: opts.servername,
    rejectUnauthorized: opts.rejectUnauthorized
  }
}

/**
 * Connection options for the material: one secure context, built once per agent or session
 * (each connect would otherwise parse the CA and client certificate again, ~2 ms of this
 * thread; docs/benchmarks.md#one-tls-context).
 */
export function tlsOptionsOf(material: TlsMaterial): tls.ConnectionOptions {
  const { isHttps: _, rejectUnauthorized, servername, ...files } = material
  return {
    secureContext: tls.createSecureContext(files),
    ...(servername === undefined ? {} : { servername }),
    ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized })
  }
}
