import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { kubeconfigSecrets } from '../../../src/adapters/kube/kubeconfig-secrets.js'

// Twelve planted secrets, one per secret-bearing field and style: block, flow, single- and
// double-quoted, auth-provider (oidc) fields, exec args and env values, and a token file.
const planted = {
  blockToken: 'tok-block-0001',
  quotedToken: 'tok-quoted-0002',
  keyData: 'a2V5LWRhdGEtMDAwMw==',
  password: 'pass-0004',
  flowToken: 'tok-flow-0005',
  idToken: 'oidc-id-0006',
  refreshToken: 'oidc-refresh-0007',
  clientSecret: 'oidc-secret-0008',
  execArg: 'exec-arg-0009',
  execFlagValue: 'exec-flag-0010',
  execEnv: 'exec-env-0011',
  tokenFile: 'file-token-0012'
}

function yamlKubeconfig(tokenFile: string): string {
  return `apiVersion: v1
kind: Config
current-context: a
users:
  - name: block
    user:
      token: ${planted.blockToken}
      client-key-data: ${planted.keyData}
  - name: quoted
    user:
      token: "${planted.quotedToken}"
      username: admin
      password: '${planted.password}'
  - {name: flow, user: {token: ${planted.flowToken}}}
  - name: oidc
    user:
      auth-provider:
        name: oidc
        config:
          client-id: public-client
          id-token: ${planted.idToken}
          refresh-token: ${planted.refreshToken}
          client-secret: ${planted.clientSecret}
  - name: exec
    user:
      exec:
        command: get-token
        args: ["--region", ${planted.execArg}, "--secret=${planted.execFlagValue}"]
        env:
          - name: TOKEN
            value: ${planted.execEnv}
  - name: file
    user:
      tokenFile: ${tokenFile}
`
}

describe('kubeconfig secrets', () => {
  it('finds every planted secret as its bare value, in any YAML style', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tazuna-kubeconfig-secrets-'))
    try {
      writeFileSync(join(dir, 'token'), `${planted.tokenFile}\n`, { mode: 0o600 })
      const found = kubeconfigSecrets(yamlKubeconfig('token'), dir)
      expect([...found].sort()).toEqual(Object.values(planted).sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads a JSON kubeconfig too', () => {
    const json = JSON.stringify({
      users: [
        { name: 'a', user: { token: planted.blockToken, 'client-key-data': planted.keyData } }
      ]
    })
    expect(kubeconfigSecrets(json).sort()).toEqual([planted.blockToken, planted.keyData].sort())
  })

  it('leaves public names, flag names and usernames unmasked', () => {
    const found = kubeconfigSecrets(yamlKubeconfig('missing-file'))
    for (const visible of ['public-client', '--region', 'admin', 'get-token', 'oidc', 'TOKEN'])
      expect(found).not.toContain(visible)
  })

  it('gives nothing for text that is not YAML', () => {
    expect(kubeconfigSecrets('users: [unclosed')).toEqual([])
  })
})
