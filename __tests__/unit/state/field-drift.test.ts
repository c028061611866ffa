// The quiet drift signal: only the head render's fields are compared, and each differing field
// is attributed from managedFields (fieldsV1 shapes as the API server writes them).
import { describe, expect, it } from '@jest/globals'
import { fieldChanges, isOutsideChange } from '../../../src/state/field-drift.js'
import type { JsonObject } from '../../../src/go/yaml.js'

const entry = (manager: string, operation: string, fieldsV1: JsonObject): JsonObject => ({
  manager,
  operation,
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1
})

const head: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } },
  data: { a: '1', b: '2' }
}

const live = (data: JsonObject, managedFields: JsonObject[]): JsonObject => ({
  ...head,
  metadata: {
    name: 'web',
    namespace: 'ns',
    uid: 'u',
    labels: { app: 'web', 'added-by-server': 'x' },
    managedFields
  },
  data
})

describe('fieldChanges', () => {
  it('finds nothing when the head fields match, whatever the server added', () => {
    const m = [entry('tazuna', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } })]
    expect(fieldChanges(head, live({ a: '1', b: '2', extra: 'y' }, m))).toEqual([])
  })

  it('names the manager a changed field moved to', () => {
    const m = [
      entry('tazuna', 'Apply', { 'f:data': { 'f:a': {} } }),
      entry('kubectl-edit', 'Update', { 'f:data': { 'f:b': {} } })
    ]
    const changes = fieldChanges(head, live({ a: '1', b: 'edited' }, m))
    expect(changes).toEqual([
      {
        path: 'data.b',
        head: '2',
        live: 'edited',
        owner: { kind: 'manager', manager: 'kubectl-edit' }
      }
    ])
    expect(changes.every(isOutsideChange)).toBe(true)
  })

  it('says tazuna when only tazuna owns the field (the head is not applied yet)', () => {
    const m = [entry('tazuna', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } })]
    const [change] = fieldChanges(head, live({ a: 'old', b: '2' }, m))
    expect(change).toMatchObject({ path: 'data.a', owner: { kind: 'tazuna' } })
    expect(isOutsideChange(change!)).toBe(false)
  })

  it('says nobody for a field removed outside tazuna', () => {
    const m = [entry('tazuna', 'Apply', { 'f:data': { 'f:a': {} } })]
    expect(fieldChanges(head, live({ a: '1' }, m))).toEqual([
      { path: 'data.b', head: '2', owner: { kind: 'nobody' } }
    ])
  })

  it('follows associative list keys to the container a manager changed', () => {
    const container = (image: string): JsonObject => ({ name: 'app', image })
    const deploymentHead: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 2, template: { spec: { containers: [container('v1')] } } }
    }
    const deploymentLive: JsonObject = {
      ...deploymentHead,
      metadata: {
        name: 'd',
        managedFields: [
          entry('tazuna', 'Apply', { 'f:spec': { 'f:template': {} } }),
          entry('kubectl-set', 'Update', {
            'f:spec': {
              'f:template': {
                'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } }
              }
            }
          }),
          {
            ...entry('kubectl-scale', 'Update', { 'f:spec': { 'f:replicas': {} } }),
            subresource: 'scale'
          }
        ]
      },
      spec: {
        replicas: 5,
        strategy: { type: 'RollingUpdate' },
        template: {
          spec: { containers: [{ ...container('v2'), imagePullPolicy: 'IfNotPresent' }] }
        }
      }
    }
    expect(fieldChanges(deploymentHead, deploymentLive)).toEqual([
      {
        path: 'spec.replicas',
        head: 2,
        live: 5,
        owner: { kind: 'manager', manager: 'kubectl-scale' }
      },
      {
        path: 'spec.template.spec.containers[name=app].image',
        head: 'v1',
        live: 'v2',
        owner: { kind: 'manager', manager: 'kubectl-set' }
      }
    ])
  })

  it('treats null, {} and [] in the head as matching an absent live field', () => {
    const h: JsonObject = { ...head, data: {}, metadata: { name: 'web', creationTimestamp: null } }
    expect(fieldChanges(h, { ...h, data: undefined as never, metadata: { name: 'web' } })).toEqual(
      []
    )
  })
})
