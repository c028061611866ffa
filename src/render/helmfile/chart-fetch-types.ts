/**
 * What chart download (chart-fetch.ts) takes and gives, shared by its HTTP-repository and OCI
 * halves (docs/compatibility.md#chart-download).
 */
import type { ChartSource } from './helm-release.js'

/** A downloaded chart archive. */
export interface FetchedChart {
  /** Chart name and version as the repository index or the OCI config blob state them. */
  name: string
  version: string
  /** The .tgz archive, byte for byte as served (OCI: digest-checked). */
  archive: Uint8Array
  /** `<name>-<version>.tgz`, a file name for the archive. */
  fileName: string
  /** Where it came from: the chart URL, or `host/repository@sha256:...`; no credentials. */
  origin: string
}

/** What to download. */
export interface ChartFetchRequest {
  /** A remote source from resolveChartSource (`local` is rejected). */
  source: ChartSource
  /** The release's `version`: exact, a constraint, or '' (newest non-prerelease). */
  version: string
  /** The release's name, for messages. */
  release: string
  /** OCI only: speak plain http from the start (Helm's `--plain-http`; default false). */
  plainHttp?: boolean
}

/**
 * A chart could not be downloaded. The message names the release and the repository URL or
 * OCI reference, and never holds a password or token.
 */
export class ChartFetchError extends Error {
  override name = 'ChartFetchError'
}

/** The URL without user info, for messages. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '')
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//')
  }
}
