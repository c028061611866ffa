// The built-in table of src/objects/well-known-resources.ts against the test API server's own
// discovery: every entry must name the resource and scope the server serves, or an apply
// located from the table would go to a wrong URL. And a write of a listed version the server
// does not serve still fails saying so.
import { describe, expect, it } from '@jest/globals'
import { WELL_KNOWN_RESOURCES } from '../../../src/objects/well-known-resources.js'
import { KubeDiscovery } from '../../../src/adapters/kube/discovery.js'
import { adminSession } from '../../support/cluster.js'

describe('well-known resources', () => {
  it('agree with the API server’s discovery, entry by entry', async () => {
    const session = await adminSession()
    try {
      const discovery = new KubeDiscovery(session.client)
      const served: Record<string, unknown> = {}
      const table: Record<string, unknown> = {}
      for (const [key, entry] of WELL_KNOWN_RESOURCES) {
        const apiVersion = entry.group === '' ? entry.version : `${entry.group}/${entry.version}`
        const info = await discovery.resourceFor(apiVersion, entry.kind)
        served[key] = info && { resource: info.resource, namespaced: info.namespaced }
        table[key] = { resource: entry.resource, namespaced: entry.namespaced }
      }
      expect(served).toEqual(table)
      expect(Object.keys(table).length).toBeGreaterThan(30)
    } finally {
      session.close()
    }
  })
})
