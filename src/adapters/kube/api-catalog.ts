/**
 * What the cluster serves, for the review's API checks (docs/risks.md#apis-the-cluster-does-not-serve):
 * the discovery snapshot the run already reads, and the CustomResourceDefinitions of the custom
 * kinds a Diff touches — one GET each (`customresourcedefinitions/<resource>.<group>`), all at
 * once. Read-only.
 */
import type { ApiCatalog, KindRef } from '../../engine/ports.js'
import type { JsonObject } from '../../go/yaml.js'
import { BUILT_IN_SCOPES } from '../../objects/kind-scope.js'
import type { ServedApis } from '../../risk/apis.js'
import { jsonBody, responseError } from './api-response.js'
import type { KubeClient } from './client.js'
import type { KubeDiscovery } from './discovery.js'

/** The ApiCatalog port over one session's client and discovery cache. */
export class KubeApiCatalog implements ApiCatalog {
  private readonly documents = new Map<string, Promise<string | undefined>>()

  constructor(
    private readonly client: KubeClient,
    private readonly discovery: KubeDiscovery
  ) {}

  async served(): Promise<ServedApis> {
    const { kubeVersion, apiVersions } = await this.discovery.capabilities()
    return { kubeVersion, apiVersions: new Set(apiVersions) }
  }

  async definitions(kinds: readonly KindRef[]): Promise<Map<string, JsonObject>> {
    const { apiVersions } = await this.served()
    const custom = new Map<string, KindRef>()
    for (const k of kinds) {
      const gv = k.group === '' ? k.version : `${k.group}/${k.version}`
      // Built-in kinds have no definition; a kind not served has no resource name to look up.
      if (k.group === '' || BUILT_IN_SCOPES.has(`${k.group}/${k.kind}`)) continue
      if (!apiVersions.has(`${gv}/${k.kind}`)) continue
      custom.set(`${k.group}/${k.kind}`, k)
    }
    const found = await Promise.all(
      [...custom].map(async ([key, k]) => {
        const info = await this.discovery.resourceFor(`${k.group}/${k.version}`, k.kind)
        if (info === undefined) return undefined
        const name = `${info.resource}.${k.group}`
        const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`
        const what = `read the CustomResourceDefinition ${name} (GET ${path})`
        const res = await this.client.request({ method: 'GET', path }, what)
        // An aggregated API's kind has no CRD.
        if (res.status === 404) return undefined
        if (res.status !== 200) throw responseError(what, res)
        return [key, jsonBody<JsonObject>(what, res)] as const
      })
    )
    return new Map(found.filter((f) => f !== undefined))
  }

  // Each document by its path, without the index's `?hash=…`: one round trip, beside
  // discovery, where the index would put a second before it (docs/risks.md#cost-of-the-api-and-schema-checks).
  // A group/version the server does not serve answers 404 and is left out.
  async schemas(groupVersions: readonly string[]): Promise<Map<string, string>> {
    const read = await Promise.all(
      groupVersions.map(async (gv) => {
        const url = `/openapi/v3/${gv.includes('/') ? 'apis' : 'api'}/${gv}`
        let document = this.documents.get(url)
        if (document === undefined) this.documents.set(url, (document = this.readDocument(url)))
        const text = await document
        return text === undefined ? undefined : ([gv, text] as const)
      })
    )
    return new Map(read.filter((r) => r !== undefined))
  }

  private async readDocument(path: string): Promise<string | undefined> {
    const what = `read the served OpenAPI schema (GET ${path})`
    const res = await this.client.request({ method: 'GET', path, accept: 'application/json' }, what)
    if (res.status === 404) return undefined
    if (res.status !== 200) throw responseError(what, res)
    return res.body
  }
}
