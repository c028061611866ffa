import { describe, expect, it } from '@jest/globals'
import {
  assessRisks,
  describeRisks,
  failingRisks,
  needsRecordedKeys
} from '../../../src/risk/assess.js'
import { parseRiskKinds } from '../../../src/risk/model.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'
import { changeOf, obj } from './objects.js'

const claim = (annotations?: Record<string, string>) =>
  obj(
    'v1',
    'PersistentVolumeClaim',
    { spec: { resources: { requests: { storage: '1Gi' } } } },
    annotations === undefined ? {} : { annotations }
  )

describe('the risk pass', () => {
  it('marks a finding accepted when the object annotates its kind, and fail-on-risk skips it', () => {
    const risks = assessRisks(
      changeOf(
        'removed',
        claim({ 'tazuna-action/accept-risk': 'widens-access, destroys-data' }),
        undefined
      )
    )
    expect(risks).toMatchObject([{ kind: 'destroys-data', accepted: true }])
    expect(failingRisks(risks, ['destroys-data'])).toEqual([])
  })

  it('does not accept a kind the annotation does not name', () => {
    const risks = assessRisks(
      changeOf('removed', claim({ 'tazuna-action/accept-risk': 'will-fail' }), undefined)
    )
    expect(risks[0]?.accepted).toBeUndefined()
    expect(failingRisks(risks, ['destroys-data'])).toHaveLength(1)
  })

  it('counts what State records inside a removed Namespace', () => {
    const ns = obj('v1', 'Namespace', {}, { name: 'app', namespace: '' })
    const input = changeOf('removed', ns, undefined, {
      recorded: [
        'm/apps/v1/Deployment/app/web',
        'm//v1/ConfigMap/app/cfg',
        'm//v1/ConfigMap/other/c'
      ],
      prune: true
    })
    expect(needsRecordedKeys(input.manifests)).toBe(true)
    expect(assessRisks(input)[0]?.message).toBe(
      'removed: prune deletes it and everything in it, including the 2 objects State records there'
    )
  })

  it('counts the recorded objects of a removed CustomResourceDefinition’s kind', () => {
    const crd = obj(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      { spec: { names: { kind: 'Widget' } } },
      { name: 'widgets.example.com', namespace: '' }
    )
    const input = changeOf('removed', crd, undefined, {
      recorded: [
        'm/example.com/v1/Widget/app/a',
        'n/example.com/v1/Widget/b/c',
        'm/example.com/v1/Gadget/app/g'
      ]
    })
    expect(assessRisks(input)[0]?.message).toContain(
      'every Widget objects in the cluster (State records 2)'
    )
  })

  it('attaches the server’s own refusal to a will-fail finding of the object', () => {
    const dep = (app: string) =>
      obj('apps/v1', 'Deployment', { spec: { selector: { matchLabels: { app } } } })
    const input = changeOf('modified', dep('a'), dep('b'))
    const key = input.manifests[0]!.entries[0]!.key
    const refused = assessRisks({
      ...input,
      refusals: new Map([['m', new Map([[key, 'field is immutable']])]])
    })
    expect(refused[0]).toMatchObject({ kind: 'will-fail', server: 'field is immutable' })
  })

  it('lays a refused dry run’s render over the live object, so server defaults are no change', () => {
    const live = obj('apps/v1', 'StatefulSet', {
      spec: { serviceName: 'db', revisionHistoryLimit: 10, podManagementPolicy: 'OrderedReady' }
    })
    const rendered = obj('apps/v1', 'StatefulSet', {
      spec: { serviceName: 'db', volumeClaimTemplates: [{ metadata: { name: 'data' } }] }
    })
    const input = changeOf('modified', live, rendered)
    const key = input.manifests[0]!.entries[0]!.key
    const risks = assessRisks({
      ...input,
      refusals: new Map([['m', new Map([[key, 'spec: Forbidden']])]])
    })
    expect(risks.map((r) => [r.path, r.server])).toEqual([
      ['spec.volumeClaimTemplates', 'spec: Forbidden']
    ])
  })

  it('finds nothing without content: a modified object needs both sides', () => {
    const input = changeOf('modified', undefined, claim())
    expect(assessRisks({ ...input, before: new Map(), head: new Map() })).toEqual([])
  })

  it('words the headline by kind, counting accepted findings apart', () => {
    const risk = { manifest: 'm', key: 'k', path: '', message: '' }
    expect(
      describeRisks([
        { ...risk, kind: 'will-fail' },
        { ...risk, kind: 'destroys-data', accepted: true },
        { ...risk, kind: 'will-fail' }
      ])
    ).toBe('2 changes will fail on apply, 1 deletes data (1 accepted)')
    expect(describeRisks([])).toBe('')
  })

  it('refuses an unknown kind in a risk list, naming it', () => {
    expect(parseRiskKinds('will-fail, destroys-data', 'fail-on-risk')).toEqual([
      'will-fail',
      'destroys-data'
    ])
    expect(() => parseRiskKinds('will-fail,fails', 'input "fail-on-risk"')).toThrow(
      'input "fail-on-risk" must list risk kinds among will-fail, rejected-by-schema, destroys-data, widens-access, fights-controller, deprecated-api, server-warning, got "fails"'
    )
  })

  // The message as structured-merge-diff words an unquoted number where a string belongs (the API
  // server's typed-patch error: ".data.VERSION: expected string, got &value.valueUnstructured{Value:1}").
  describe('a schema finding under a Secret value', () => {
    const unquoted = (kind: 'Secret' | 'ConfigMap', field: string) => {
      const o = obj('v1', kind, { [field]: { password: 918273 } })
      const key = formatStateKey(stateKeyOf('m', o))
      const message = 'expected string, got &value.valueUnstructured{Value:918273}'
      return assessRisks(
        changeOf('added', undefined, o, {
          schema: new Map([['m', new Map([[key, [{ path: `.${field}.password`, message }]]])]])
        })
      )
    }

    it.each(['data', 'stringData'])(
      'keeps the words but not the value of a Secret’s %s',
      (field) => {
        const risks = unquoted('Secret', field)
        expect(risks).toMatchObject([
          {
            kind: 'rejected-by-schema',
            path: `${field}.password`,
            message: 'expected string, got a value that is not shown (the object is a Secret)'
          }
        ])
        expect(JSON.stringify(risks)).not.toContain('918273')
      }
    )

    it('keeps the server’s whole message for any other object', () => {
      expect(unquoted('ConfigMap', 'data')[0]?.message).toBe(
        'expected string, got &value.valueUnstructured{Value:918273}'
      )
    })
  })
})
