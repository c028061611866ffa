// helmfile vars (docs/compatibility.md#helmfile step 1) from env, static and 1Password.
import { describe, expect, it } from '@jest/globals'
import { resolveHelmfileVars, type VarSources } from '../../../src/render/helmfile/helmfile-vars.js'
import type { HelmfileVarSpec } from '../../../src/render/context.js'

function sources(
  env: Record<string, string> = {}
): VarSources & { secrets: string[]; calls: string[] } {
  const secrets: string[] = []
  const calls: string[] = []
  return {
    secrets,
    calls,
    lookupEnv: (name) => env[name],
    registerSecret: (v) => secrets.push(v),
    fetchOpItem: (vault, item) => {
      calls.push(`${vault}/${item}`)
      return Promise.resolve([
        { id: 'username', label: 'user', value: 'admin' },
        { id: 'pw1', label: 'password', value: 's3cret' },
        { id: 'pw2', label: 'password', value: 'second' }
      ])
    }
  }
}

describe('resolveHelmfileVars', () => {
  it.each<[string, HelmfileVarSpec, unknown]>([
    ['env', { from: 'env', env: 'TIER' }, 'backend'],
    ['static string', { from: 'static', static: 'x' }, 'x'],
    ['static empty string', { from: 'static', static: '' }, ''],
    [
      'staticSlice',
      { from: 'static', static: '', staticSlice: ['a', 'b'], staticMap: {} },
      ['a', 'b']
    ],
    [
      'staticMap',
      { from: 'static', static: '', staticSlice: [], staticMap: { k: 'v' } },
      { k: 'v' }
    ],
    ['op by id', { from: 'op', op: { key: 'id', vault: 'v', item: 'i', field: 'pw1' } }, 's3cret'],
    [
      'op by label, first match',
      { from: 'op', op: { key: 'label', vault: 'v', item: 'i', field: 'password' } },
      's3cret'
    ]
  ])('resolves %s', async (_name, spec, value) => {
    expect(
      await resolveHelmfileVars({ v: spec }, sources({ TIER: 'backend' }), 'manifest m')
    ).toEqual({ v: value })
  })

  it('registers values from 1Password as secrets, and only those', async () => {
    const s = sources({ TIER: 'backend' })
    await resolveHelmfileVars(
      {
        a: { from: 'op', op: { key: 'id', vault: 'v', item: 'i', field: 'pw1' } },
        b: { from: 'env', env: 'TIER' }
      },
      s,
      'manifest m'
    )
    expect(s.secrets).toEqual(['s3cret'])
  })

  it.each<[string, HelmfileVarSpec, string]>([
    [
      'an unset env var',
      { from: 'env', env: 'MISSING' },
      "manifest m: helmfile var 'v': environment variable MISSING is not set"
    ],
    [
      'a missing from',
      { from: '' },
      "helmfile var 'v' has no From field, supported From is 'env/static/op'"
    ],
    ['an unknown from', { from: 'vault' }, 'unsupported from "vault"'],
    [
      'an incomplete op',
      { from: 'op', op: { key: 'name', vault: 'v', item: 'i', field: 'f' } },
      'op needs key (id or label)'
    ],
    [
      'an op field that does not exist',
      { from: 'op', op: { key: 'id', vault: 'v', item: 'i', field: 'nope' } },
      'has no field with id "nope"'
    ]
  ])('rejects %s', async (_name, spec, message) => {
    await expect(resolveHelmfileVars({ v: spec }, sources(), 'manifest m')).rejects.toThrow(message)
  })
})
