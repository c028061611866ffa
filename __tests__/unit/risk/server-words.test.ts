// Live mode's dry run in the risk pass (docs/risks.md#what-live-mode-adds): the server's
// warnings go with the finding they confirm or are findings of their own, and its refusal goes
// with the findings it confirms. The warnings' words are the API server's: a CRD version's
// deprecationWarning as apiextensions-apiserver sends it, and a built-in version's as
// k8s.io/apiserver's deprecation.WarningMessage words it ("<group/version> <Kind> is deprecated
// in v<major>.<minor>+, unavailable in v<major>.<minor>+; use <group/version> <Kind>").
import { describe, expect, it } from '@jest/globals'
import type { JsonObject } from '../../../src/go/yaml.js'
import { assessRisks, describeRisks } from '../../../src/risk/assess.js'
import { definitionsIn, type ApiContext } from '../../../src/risk/apis.js'
import { risksText } from '../../../src/risk/text.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'
import { changeOf, obj } from './objects.js'

const keyOf = (o: JsonObject) => formatStateKey(stateKeyOf('m', o))
const byKey = <T>(o: JsonObject, v: T) => new Map([['m', new Map([[keyOf(o), v]])]])

const widget = obj('example.com/v1', 'Widget', { spec: { size: 1 } })
const crd = obj(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  {
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      versions: [
        { name: 'v1', served: true, deprecated: true, deprecationWarning: 'v1 goes: use v2' },
        { name: 'v2', served: true }
      ]
    }
  },
  { name: 'widgets.example.com', namespace: '' }
)
const apis: ApiContext = {
  served: {
    kubeVersion: 'v1.24.0',
    apiVersions: new Set([
      'example.com/v1',
      'example.com/v1/Widget',
      'policy/v1beta1',
      'policy/v1beta1/PodDisruptionBudget'
    ])
  },
  diff: definitionsIn([]),
  cluster: new Map([['example.com/Widget', definitionsIn([crd]).crds.get('example.com/Widget')!]])
}

describe("the dry run's warnings", () => {
  it('go with the deprecated-api finding of a CRD version whose deprecationWarning they are', () => {
    const risks = assessRisks(
      changeOf('added', undefined, widget, { apis, warnings: byKey(widget, ['v1 goes: use v2']) })
    )
    expect(risks).toEqual([
      expect.objectContaining({ kind: 'deprecated-api', serverWarnings: ['v1 goes: use v2'] })
    ])
  })

  it("go with a built-in version's deprecated-api finding, in the API server's longer words", () => {
    const pdb = obj('policy/v1beta1', 'PodDisruptionBudget', { spec: { minAvailable: 1 } })
    const said =
      'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget'
    const risks = assessRisks(
      changeOf('added', undefined, pdb, { apis, warnings: byKey(pdb, [said]) })
    )
    expect(risks).toEqual([
      expect.objectContaining({ kind: 'deprecated-api', serverWarnings: [said] })
    ])
    expect(risksText(risks)[1]).toBe(
      `  deprecated-api m: policy/v1beta1/PodDisruptionBudget/app/x apiVersion: policy/v1beta1 PodDisruptionBudget is deprecated since Kubernetes 1.21; it is removed in Kubernetes 1.25: use policy/v1 (the API server's dry run warns: ${said})`
    )
  })

  it('that confirm no finding are server-warning findings of their own, after the others', () => {
    const fraction =
      'spec.template.spec.containers[0].resources.limits[memory]: fractional byte value "1.5" is invalid, must be an integer'
    const risks = assessRisks(
      changeOf('added', undefined, widget, {
        apis,
        warnings: byKey(widget, ['v1 goes: use v2', fraction])
      })
    )
    expect(risks.map((r) => [r.kind, r.path, r.message, r.serverWarnings])).toEqual([
      ['deprecated-api', 'apiVersion', expect.any(String), ['v1 goes: use v2']],
      ['server-warning', '', fraction, undefined]
    ])
    expect(describeRisks(risks)).toBe(
      "1 uses a deprecated API, 1 warning from the API server's dry run"
    )
  })

  it('are their own findings when no API check ran, and the annotation may accept them', () => {
    const accepting = obj(
      'v1',
      'ConfigMap',
      { data: {} },
      { annotations: { 'tazuna-action/accept-risk': 'server-warning' } }
    )
    expect(
      assessRisks(changeOf('modified', accepting, accepting, { warnings: byKey(accepting, ['w']) }))
    ).toEqual([
      {
        kind: 'server-warning',
        manifest: 'm',
        key: keyOf(accepting),
        path: '',
        message: 'w',
        accepted: true
      }
    ])
  })

  it('of a removed object are not looked at (it has no dry run)', () => {
    const cm = obj('v1', 'ConfigMap', { data: {} })
    expect(assessRisks(changeOf('removed', cm, undefined, { warnings: byKey(cm, ['w']) }))).toEqual(
      []
    )
  })
})

describe("the dry run's refusal", () => {
  it('goes with the schema findings it confirms, as with will-fail, and with no other', () => {
    const deployment = obj('apps/v1', 'Deployment', { spec: { replica: 3 } })
    const refusal =
      'dry-run apply Deployment app/x: HTTP 500 InternalError: failed to create typed patch object (app/x; apps/v1, Kind=Deployment): .spec.replica: field not declared in schema'
    const risks = assessRisks(
      changeOf('added', undefined, deployment, {
        refusals: byKey(deployment, refusal),
        schema: byKey(deployment, [
          { path: '.spec.replica', message: '.spec.replica: field not declared in schema' }
        ]),
        warnings: byKey(deployment, ['w'])
      })
    )
    expect(risks).toEqual([
      expect.objectContaining({
        kind: 'rejected-by-schema',
        path: 'spec.replica',
        server: refusal
      }),
      expect.not.objectContaining({ server: expect.anything() })
    ])
  })
})
