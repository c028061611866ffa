/**
 * Chart download for a helmfile release whose chart is `<alias>/<chart>` of a declared
 * repository or an `oci://` reference, as Helm v3.21.4's `ChartPathOptions.LocateChart` does it
 * (docs/compatibility.md#chart-download). Returns the archive's bytes; writing them (to the
 * run's temp dir) and loading the chart are the caller's. Talks to the network only through
 * the HttpClient port.
 */
import type { HttpClient } from '../ports.js'
import { fetchFromRegistry } from './chart-fetch-oci.js'
import { fetchFromRepository } from './chart-fetch-repo.js'
import { ChartFetchError, type ChartFetchRequest, type FetchedChart } from './chart-fetch-types.js'

export { ChartFetchError, type ChartFetchRequest, type FetchedChart } from './chart-fetch-types.js'
export { resolveReferenceUrl } from './chart-fetch-repo.js'

/**
 * Downloads the chart of `request.source` at `request.version`. Rejects with ChartFetchError
 * for wrong credentials, a missing chart or version, an unreachable server, a digest mismatch.
 */
export async function fetchChart(
  http: HttpClient,
  request: ChartFetchRequest
): Promise<FetchedChart> {
  const { source } = request
  const secret = source.kind === 'local' ? '' : (source.repository?.password ?? '')
  try {
    if (source.kind === 'repo')
      return await fetchFromRepository(http, request, source.chart, source.repository)
    if (source.kind === 'oci')
      return await fetchFromRegistry(http, request, source.ref, source.repository)
    throw new ChartFetchError(
      `release "${request.release}": chart ${source.path} is local, nothing to download`
    )
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const safe = secret === '' ? message : message.split(secret).join('***')
    if (err instanceof ChartFetchError && safe === message) throw err
    throw new ChartFetchError(safe)
  }
}
