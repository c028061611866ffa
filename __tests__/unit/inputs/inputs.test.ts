import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { InputError } from '../../../src/errors.js'
import {
  inputDefaults,
  parseByteSize,
  readSettings,
  type InputSource
} from '../../../src/inputs.js'

const source = (
  inputs: Record<string, string> = {},
  eventName = 'pull_request',
  env: Record<string, string> = {}
): InputSource => ({
  input: (name) => inputs[name] ?? '',
  env: (name) => env[name],
  eventName
})

describe('readSettings', () => {
  it('applies the defaults of action.yml', () => {
    expect(readSettings(source())).toEqual({
      config: 'tazuna.yaml',
      environment: '',
      target: '',
      tags: [],
      mode: 'diff',
      sync: true,
      prune: false,
      atomic: false,
      kubeconfig: { kind: 'ambient' },
      clusterAuth: { kind: 'kubeconfig' },
      githubToken: '',
      comment: true,
      failOnDiff: false,
      failOnRisk: [],
      lockTimeoutSeconds: 600,
      renderTimeoutSeconds: 300,
      maxRenderBytes: 268_435_456,
      maxRenderMemory: 1_073_741_824,
      allowedPaths: [],
      allowOlderCommit: false,
      failOnDrift: false,
      driftIssue: false,
      contentDiff: 'base',
      orasOffline: false,
      orasNoCache: false,
      skipUnchangedRenders: true,
      reviewedDiff: 'warn',
      stateSource: 'auto',
      report: ''
    })
  })

  it('reads cluster-auth github-oidc with its audience, server and certificate authority', () => {
    expect(readSettings(source({ 'cluster-auth': 'github-oidc' })).clusterAuth).toEqual({
      kind: 'github-oidc',
      audience: 'tazuna-action',
      server: undefined,
      certificateAuthority: undefined
    })
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
    expect(
      readSettings(
        source({
          'cluster-auth': 'github-oidc',
          'oidc-audience': 'https://prod.example',
          server: 'https://10.0.0.1:6443',
          'certificate-authority': pem
        })
      ).clusterAuth
    ).toEqual({
      kind: 'github-oidc',
      audience: 'https://prod.example',
      server: 'https://10.0.0.1:6443',
      certificateAuthority: { kind: 'content', content: pem.trim() }
    })
    expect(
      readSettings(
        source({
          'cluster-auth': 'github-oidc',
          server: 'https://k8s.example',
          'certificate-authority': 'ca.pem'
        })
      ).clusterAuth
    ).toMatchObject({ certificateAuthority: { kind: 'path', path: 'ca.pem' } })
  })

  it.each([
    [
      { 'cluster-auth': 'oidc' },
      'input "cluster-auth" must be one of kubeconfig, github-oidc, got "oidc"'
    ],
    [
      { server: 'https://k8s.example' },
      'input "server" is used with cluster-auth github-oidc only'
    ],
    [
      { 'cluster-auth': 'github-oidc', server: 'http://k8s.example' },
      'input "server" must be the API server\'s https URL'
    ],
    [
      { 'cluster-auth': 'github-oidc', server: 'https://k8s.example', kubeconfig: 'kc.yaml' },
      'inputs "server" and "kubeconfig" name the cluster twice'
    ],
    [
      { 'cluster-auth': 'github-oidc', 'certificate-authority': 'ca.pem' },
      'input "certificate-authority" goes with input "server"'
    ]
  ])('refuses cluster-auth inputs that do not fit together: %j', (inputs, message) => {
    expect(() => readSettings(source(inputs))).toThrow(InputError)
    expect(() => readSettings(source(inputs))).toThrow(message)
  })

  it('repeats exactly the defaults declared in action.yml', () => {
    const action = parse(
      readFileSync(join(import.meta.dirname, '../../../action.yml'), 'utf8')
    ) as {
      inputs: Record<string, { default?: string }>
    }
    const declared = Object.fromEntries(
      Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? ''])
    )
    expect({ ...declared, 'github-token': '' }).toEqual(inputDefaults)
    expect(declared['github-token']).toBe('${{ github.token }}')
  })

  it('reads fail-on-risk as a list of risk kinds and refuses an unknown one', () => {
    expect(readSettings(source({ 'fail-on-risk': 'will-fail, destroys-data' })).failOnRisk).toEqual(
      ['will-fail', 'destroys-data']
    )
    expect(() => readSettings(source({ 'fail-on-risk': 'will-fail,data' }))).toThrow(
      /input "fail-on-risk" must list risk kinds among will-fail, rejected-by-schema, destroys-data, widens-access, fights-controller, deprecated-api, server-warning, got "data"/
    )
  })

  it.each(['base', 'live', 'off'])('reads content-diff %s', (value) => {
    expect(readSettings(source({ 'content-diff': value })).contentDiff).toBe(value)
  })

  it.each([
    ['auto', 'pull_request', 'diff'],
    ['auto', 'pull_request_target', 'diff'],
    ['auto', 'push', 'apply'],
    ['check', 'schedule', 'check'],
    ['diff', 'workflow_dispatch', 'diff'],
    ['apply', 'pull_request', 'apply'],
    ['auto', 'schedule', 'drift'],
    ['auto', 'workflow_dispatch', 'drift'],
    ['drift', 'push', 'drift'],
    ['publish', 'workflow_run', 'publish']
  ])('mode %s on %s is %s', (mode, event, expected) => {
    expect(readSettings(source({ mode, report: 'report.json' }, event)).mode).toBe(expected)
  })

  it.each([
    [
      { mode: 'auto' },
      'issue_comment',
      /mode.*"auto".*event is "issue_comment".*set mode to check, diff, apply, drift or publish/
    ],
    [
      { mode: 'plan' },
      'push',
      /input "mode" must be one of auto, check, diff, apply, drift, publish, got "plan"/
    ],
    [
      { mode: 'publish', report: '' },
      'workflow_run',
      /input "report" is empty: mode publish needs/
    ],
    [{ sync: 'yes' }, 'push', /input "sync" must be a boolean \(true or false\), got "yes"/],
    [{ comment: '1' }, 'push', /input "comment" must be a boolean/],
    [{ 'fail-on-diff': 'on' }, 'push', /input "fail-on-diff" must be a boolean/],
    [{ 'fail-on-drift': 'yes' }, 'schedule', /input "fail-on-drift" must be a boolean/],
    [{ 'drift-issue': '1' }, 'schedule', /input "drift-issue" must be a boolean/],
    [{ sync: 'false', prune: 'true' }, 'push', /input "prune".*requires input "sync"/],
    [{ sync: 'false', atomic: 'true' }, 'push', /input "atomic" requires input "sync"/],
    [{ 'lock-timeout': '10 minutes' }, 'push', /input "lock-timeout" must be a duration/],
    [{ 'lock-timeout': '5d' }, 'push', /input "lock-timeout" must be a duration/],
    [{ 'render-timeout': '0' }, 'push', /input "render-timeout" must be longer than 0 s/],
    [{ 'max-render-bytes': '256MB' }, 'push', /input "max-render-bytes" must be a size/],
    [{ 'max-render-bytes': '0' }, 'push', /input "max-render-bytes" must be a size/],
    [
      { 'content-diff': 'kubectl' },
      'pull_request',
      /input "content-diff" must be one of base, live, off, got "kubectl"/
    ]
  ])('rejects %o on %s naming the input and accepted values', (inputs, event, message) => {
    expect(() => readSettings(source(inputs, event))).toThrow(InputError)
    expect(() => readSettings(source(inputs, event))).toThrow(message)
  })

  it.each([
    ['600', 600],
    ['90s', 90],
    ['10m', 600],
    ['1h30m', 5400],
    ['0', 0]
  ])('reads lock-timeout %s as %d seconds', (value, seconds) => {
    expect(readSettings(source({ 'lock-timeout': value }, 'push')).lockTimeoutSeconds).toBe(seconds)
  })

  it.each([
    ['true', true],
    ['TRUE', true],
    ['false', false],
    ['', false]
  ])('TAZUNA_STATE_SYNC_DELETE=%s turns prune on: %s', (value, prune) => {
    expect(readSettings(source({}, 'push', { TAZUNA_STATE_SYNC_DELETE: value })).prune).toBe(prune)
  })

  it('refuses TAZUNA_STATE_SYNC_DELETE=true without sync', () => {
    expect(() =>
      readSettings(source({ sync: 'false' }, 'push', { TAZUNA_STATE_SYNC_DELETE: 'true' }))
    ).toThrow(/TAZUNA_STATE_SYNC_DELETE/)
  })

  it('reads oras-offline and oras-no-cache, and refuses both together as Tazuna does', () => {
    expect(readSettings(source({ 'oras-offline': 'true' }))).toMatchObject({
      orasOffline: true,
      orasNoCache: false
    })
    expect(() => readSettings(source({ 'oras-offline': 'true', 'oras-no-cache': 'true' }))).toThrow(
      '--no-cache and --offline cannot be specified together'
    )
  })

  it('reads skip-unchanged-renders (on unless "false")', () => {
    expect(readSettings(source({ 'skip-unchanged-renders': 'false' })).skipUnchangedRenders).toBe(
      false
    )
    expect(() => readSettings(source({ 'skip-unchanged-renders': 'no' }))).toThrow(
      /skip-unchanged-renders/
    )
  })

  it('reads reviewed-diff (warn, require or off)', () => {
    expect(readSettings(source({ 'reviewed-diff': 'require' })).reviewedDiff).toBe('require')
    expect(readSettings(source({ 'reviewed-diff': 'off' })).reviewedDiff).toBe('off')
    expect(() => readSettings(source({ 'reviewed-diff': 'strict' }))).toThrow(
      'input "reviewed-diff" must be one of warn, require, off, got "strict"'
    )
  })

  it('reads state-snapshot (off or a git ref that is not a branch or tag)', () => {
    expect(readSettings(source()).stateSnapshotRef).toBeUndefined()
    const ref = 'refs/tazuna-state/deploy/production'
    expect(readSettings(source({ 'state-snapshot': ref })).stateSnapshotRef).toBe(ref)
    expect(() => readSettings(source({ 'state-snapshot': 'refs/heads/main' }))).toThrow(
      'input "state-snapshot" must be off or a git ref such as refs/tazuna-state/<config>/<environment>; "refs/heads/main" must not be a branch, tag, remote or pull request ref (it is force-replaced)'
    )
    expect(() => readSettings(source({ 'state-snapshot': 'on' }))).toThrow(InputError)
  })

  it('reads state-source (cluster, snapshot or auto; auto by default)', () => {
    expect(readSettings(source()).stateSource).toBe('auto')
    expect(readSettings(source({ 'state-source': 'snapshot' })).stateSource).toBe('snapshot')
    expect(readSettings(source({ 'state-source': 'cluster' })).stateSource).toBe('cluster')
    expect(() => readSettings(source({ 'state-source': 'file' }))).toThrow(
      'input "state-source" must be one of cluster, snapshot, auto, got "file"'
    )
  })

  it('splits tags at commas and newlines', () => {
    expect(readSettings(source({ tags: 'infra, app\n\nweb,app' })).tags).toEqual([
      'infra',
      'app',
      'web'
    ])
  })

  it.each([
    ['', { kind: 'ambient' }],
    ['  /home/runner/.kube/config ', { kind: 'path', path: '/home/runner/.kube/config' }],
    ['apiVersion: v1', { kind: 'content', content: 'apiVersion: v1\n' }],
    ['{"apiVersion":"v1"}', { kind: 'content', content: '{"apiVersion":"v1"}\n' }],
    ['clusters: []\nusers: []\n', { kind: 'content', content: 'clusters: []\nusers: []\n' }]
  ])('takes kubeconfig %j as %o', (kubeconfig, expected) => {
    expect(readSettings(source({ kubeconfig })).kubeconfig).toEqual(expected)
  })
})

describe('render limits', () => {
  it('default to 5 minutes, 256 MiB of output and 1 GiB of memory', () => {
    const settings = readSettings(source({}, 'pull_request'))
    expect(settings.renderTimeoutSeconds).toBe(300)
    expect(settings.maxRenderBytes).toBe(268_435_456)
    expect(settings.maxRenderMemory).toBe(1_073_741_824)
  })

  it('read max-render-memory as a size', () => {
    const settings = readSettings(source({ 'max-render-memory': '512Mi' }, 'pull_request'))
    expect(settings.maxRenderMemory).toBe(536_870_912)
  })

  it.each([
    ['1048576', 1_048_576],
    ['512Ki', 524_288],
    ['1Mi', 1_048_576],
    ['2Gi', 2_147_483_648]
  ])('read max-render-bytes %s as %d bytes', (value, bytes) => {
    expect(parseByteSize('input "max-render-bytes"', value)).toBe(bytes)
  })
})
