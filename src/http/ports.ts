/**
 * The network as the chart download and the OCI client see it: plain GETs through one small
 * port (implemented in src/adapters/http-client.ts over Node's fetch). Below both render/ and
 * oci/, which use it.
 */

/** What an HTTP GET brought back, body read to the end. */
export interface HttpResponse {
  status: number
  /** Response headers, names lower-cased. */
  headers: Record<string, string>
  body: Uint8Array
  /** The URL that answered (after redirects). */
  url: string
}

/** Headers to send with a GET (e.g. Authorization, Accept). */
export interface HttpRequestOptions {
  headers?: Record<string, string>
}

/**
 * GETs a URL, following redirects (credentials are not carried to another origin). Resolves
 * for every HTTP status; rejects with HttpTransportError when no response arrives.
 */
export interface HttpClient {
  get(url: string, options?: HttpRequestOptions): Promise<HttpResponse>
}

/**
 * Why no HTTP response arrived. `plain-http` means an https:// request reached a server that
 * answered in plain HTTP (Helm's registry client then retries over http). `message` never holds
 * request headers.
 */
export class HttpTransportError extends Error {
  override name = 'HttpTransportError'
  constructor(
    message: string,
    readonly reason: 'plain-http' | 'timeout' | 'unreachable'
  ) {
    super(message)
  }
}
