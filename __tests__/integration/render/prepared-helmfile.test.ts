// A record check resolves a helmfile's requests with the capabilities asked at the run's start;
// a render after it takes the requests over (docs/renderers.md#helm-records). An earlier layer
// may have added a CRD in between (docs/compatibility.md#crd-establishment), so the render uses
// the capabilities it is given, as a render without a check does. Expected output: the
// fixture's own, taken from Helm (fixtures/render-parity/README.md).
import { describe, expect, it } from '@jest/globals'
import { buildManifest, helmfileRequests } from '../../../src/render/manifest.js'
import { loadFixture } from './harness.js'

describe('a helmfile render after its record check', () => {
  it('renders with the capabilities it is given, not those the check resolved with', async () => {
    const f = loadFixture('render-parity/helm-caps-discovered')
    const manifest = f.case.manifest
    // The start of the run: the API server served none of the fixture's API versions yet.
    const atStart = { kubeVersion: f.ctx.capabilities!.kubeVersion, apiVersions: [] }
    const prepared = await helmfileRequests(manifest, { ...f.ctx, capabilities: atStart })
    expect(prepared.requests.map((r) => r.apiVersions)).toEqual([[]])

    const built = await buildManifest(manifest, { ...f.ctx, preparedHelmfile: () => prepared })
    const fresh = await buildManifest(manifest, f.ctx)
    expect(built.objects).toEqual(fresh.objects)
    expect([...built.entries]).toEqual([...fresh.entries])
    const caps = built.objects.find((o) => o.kind === 'ConfigMap')
    expect(caps?.data).toMatchObject({ monitoring: 'true', serviceMonitor: 'true' })
    expect(built.objects.find((o) => o.kind === 'PodDisruptionBudget')?.apiVersion).toBe(
      'policy/v1'
    )
  })
})
