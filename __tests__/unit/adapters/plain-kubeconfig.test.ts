// The plain kubeconfig reader against its oracle, client-node 2.0.1 (the reader it stands in
// for): over a corpus of kubeconfigs, the server, the context and every connection option but
// the agent must be what client-node gives; a kubeconfig outside the plain subset, or one
// client-node refuses, must be left to client-node (undefined).
import { afterAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type https from 'node:https'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { loadKubeConfig } from '../../../src/adapters/kube/config.js'
import { readPlainKubeConfig } from '../../../src/adapters/kube/plain-kubeconfig.js'

const dir = mkdtempSync(join(tmpdir(), 'plain-kubeconfig-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Distinct bytes per file, so that a CA read where a key was meant shows.
mkdirSync(join(dir, 'certs'))
for (const name of ['ca.crt', 'client.crt', 'client.key', 'other-ca.crt']) {
  writeFileSync(join(dir, 'certs', name), `-----${name}-----\n`)
}
const b64 = (text: string) => Buffer.from(text).toString('base64')

let written = 0
/** Writes a kubeconfig (text as given, YAML or JSON) into `sub` of the temp dir. */
function file(text: string, sub = '.'): string {
  mkdirSync(join(dir, sub), { recursive: true })
  const path = join(dir, sub, `config-${++written}`)
  writeFileSync(path, text)
  return path
}

interface Read {
  server: string
  context: string
  opts: https.RequestOptions
}

/** What client-node gives, loaded as src/adapters/kube/config.ts loads it. */
async function clientNode(files: string[]): Promise<Read> {
  const kc = new KubeConfig()
  files.forEach((f, i) => {
    const target = i === 0 ? kc : new KubeConfig()
    target.loadFromFile(f)
    if (i > 0) kc.mergeConfig(target, true)
  })
  const opts: https.RequestOptions = {}
  await kc.applyToHTTPSOptions(opts)
  delete opts.agent
  return { server: kc.getCurrentCluster()?.server ?? '', context: kc.getCurrentContext(), opts }
}

function plain(files: string[]): Read | undefined {
  const read = readPlainKubeConfig(files)
  if (read === undefined) return undefined
  const opts: https.RequestOptions = {}
  read.applyToHTTPSOptions(opts)
  return { server: read.server, context: read.context, opts }
}

const yaml = (clusters: string, users: string, contexts: string, current = 'x'): string =>
  `apiVersion: v1\nkind: Config\ncurrent-context: ${current}\n` +
  `clusters:\n${clusters}\nusers:\n${users}\ncontexts:\n${contexts}\n`
const context = '- name: x\n  context: {cluster: c, user: u}'

const PLAIN: [string, () => string[]][] = [
  [
    'a token and CA data',
    () => [
      file(
        yaml(
          `- name: c\n  cluster: {server: 'https://k.example:6443', certificate-authority-data: ${b64('ca-data')}}`,
          '- name: u\n  user: {token: sometoken}',
          context
        )
      )
    ]
  ],
  [
    'client certificate data and a CA file relative to the kubeconfig',
    () => [
      file(
        yaml(
          '- name: c\n  cluster:\n    server: https://10.0.0.1\n    certificate-authority: ../certs/ca.crt',
          `- name: u\n  user:\n    client-certificate-data: ${b64('cert')}\n    client-key-data: ${b64('key')}`,
          context
        ),
        'nested'
      )
    ]
  ],
  [
    'certificate files by absolute path, insecure-skip-tls-verify and tls-server-name',
    () => [
      file(
        yaml(
          '- name: c\n  cluster:\n    server: https://10.0.0.1:443/\n    insecure-skip-tls-verify: true\n    tls-server-name: api.internal',
          `- name: u\n  user:\n    client-certificate: ${join(dir, 'certs', 'client.crt')}\n    client-key: ${join(dir, 'certs', 'client.key')}`,
          context
        )
      )
    ]
  ],
  [
    'a relative KUBECONFIG path with relative certificate files',
    () => {
      const f = file(
        yaml(
          '- name: c\n  cluster: {server: https://h, certificate-authority: certs/ca.crt}',
          '- name: u\n  user: {client-certificate: certs/client.crt, client-key: certs/client.key}',
          context
        )
      )
      return [relative(process.cwd(), f)]
    }
  ],
  [
    'impersonation with a token; extra fields client-node ignores',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h, extensions: [], disable-compression: true}',
          '- name: u\n  user: {token: t0k, as: jane, as-groups: [dev]}',
          context
        )
      )
    ]
  ],
  [
    'a JSON kubeconfig',
    () => [
      file(
        JSON.stringify({
          'current-context': 'x',
          clusters: [{ name: 'c', cluster: { server: 'https://json:6443' } }],
          users: [{ name: 'u', user: { token: 'json-token' } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'n' } }]
        })
      )
    ]
  ],
  [
    'two files: the first names the context, the second holds cluster and user',
    () => [
      file('current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n'),
      file(
        'current-context: ignored\nclusters:\n- name: c\n  cluster: {server: https://second}\n' +
          'users:\n- name: u\n  user: {token: second}\n'
      )
    ]
  ],
  [
    'duplicate names within the first file: the first entry wins',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://first}\n- name: c\n  cluster: {server: https://second}',
          '- name: u\n  user: {token: first}\n- name: u\n  user: {token: second}',
          `${context}\n- name: x\n  context: {cluster: other, user: other}`
        )
      )
    ]
  ],
  [
    'a user entry without credentials, and a string insecure-skip-tls-verify (not true)',
    () => [
      file(
        yaml(
          "- name: c\n  cluster: {server: https://h, insecure-skip-tls-verify: 'true'}",
          '- name: u',
          context
        )
      )
    ]
  ],
  [
    'other users with exec plugins and token files, the current one plain',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: e\n  user: {exec: {command: nope, apiVersion: client.authentication.k8s.io/v1}}\n' +
            '- name: u\n  user: {token: plain, token-file: /nonexistent}',
          context
        )
      )
    ]
  ],
  [
    'YAML anchors and aliases',
    () => [
      file(
        'current-context: x\nclusters:\n- name: c\n  cluster: &base {server: https://anchored}\n' +
          '- name: d\n  cluster: *base\n' +
          'users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: d, user: u}\n'
      )
    ]
  ]
]

const NOT_PLAIN: [string, () => string[]][] = [
  [
    'an exec plugin',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: u\n  user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}}',
          context
        )
      )
    ]
  ],
  [
    'an auth provider',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: u\n  user: {auth-provider: {name: oidc, config: {id-token: x}}}',
          context
        )
      )
    ]
  ],
  [
    'a token file (read at load, by client-node)',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          `- name: u\n  user: {token-file: ${join(dir, 'certs', 'ca.crt')}}`,
          context
        )
      )
    ]
  ],
  [
    'basic auth',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: u\n  user: {username: admin, password: pw}',
          context
        )
      )
    ]
  ],
  [
    'a proxy-url',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h, proxy-url: http://proxy:3128}',
          '- name: u\n  user: {token: t}',
          context
        )
      )
    ]
  ],
  [
    'no current-context',
    () => [file(yaml('- name: c\n  cluster: {server: https://h}', '- name: u', context, "''"))]
  ],
  [
    'a current-context that is not defined',
    () => [file(yaml('- name: c\n  cluster: {server: https://h}', '- name: u', context, 'y'))]
  ],
  [
    'a context without a user',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: u',
          '- name: x\n  context: {cluster: c}'
        )
      )
    ]
  ],
  [
    'a cluster without a server (client-node refuses the file)',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}\n- name: d\n  cluster: {}',
          '- name: u',
          context
        )
      )
    ]
  ],
  [
    'a name in two files (client-node refuses the merge)',
    () => [
      file(yaml('- name: c\n  cluster: {server: https://one}', '- name: u', context)),
      file('clusters:\n- name: c\n  cluster: {server: https://two}\n')
    ]
  ],
  [
    'a token that is not a string',
    () => [
      file(
        yaml(
          '- name: c\n  cluster: {server: https://h}',
          '- name: u\n  user: {token: 12345}',
          context
        )
      )
    ]
  ],
  [
    'two YAML documents',
    () => [
      file(`${yaml('- name: c\n  cluster: {server: https://h}', '- name: u', context)}---\n{}\n`)
    ]
  ],
  [
    'a merge key, which js-yaml 5 does not merge (client-node finds no server)',
    () => [
      file(
        'current-context: x\nclusters:\n- name: c\n  cluster: &base {server: https://anchored}\n' +
          '- name: d\n  cluster:\n    <<: *base\n    tls-server-name: merged\n' +
          'users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: d, user: u}\n'
      )
    ]
  ],
  ['text that is not YAML', () => [file('users: [ {token: abc\n  : : :')]],
  ['a file that cannot be read', () => [join(dir, 'missing')]]
]

describe('readPlainKubeConfig', () => {
  it.each(PLAIN)('reads %s as client-node does', async (_, files) => {
    const given = files()
    const ours = plain(given)
    expect(ours).toBeDefined()
    expect(ours).toEqual(await clientNode(given))
  })

  it.each(NOT_PLAIN)('leaves %s to client-node', (_, files) => {
    expect(plain(files())).toBeUndefined()
  })

  it('reads the CA and certificate files when applied, and rejects as client-node does', async () => {
    const ca = join(dir, 'certs', 'rotating-ca.crt')
    writeFileSync(ca, 'first')
    const config = file(
      yaml(
        `- name: c\n  cluster: {server: https://h, certificate-authority: ${ca}}`,
        '- name: u',
        context
      )
    )
    const loaded = await loadKubeConfig({ env: { KUBECONFIG: config } })
    expect(loaded.reader).toBe('plain')
    writeFileSync(ca, 'second')
    const opts: https.RequestOptions = {}
    await loaded.credentials.applyToHTTPSOptions(opts)
    expect(opts.ca).toEqual((await clientNode([config])).opts.ca)
    expect(String(opts.ca)).toBe('second')
    rmSync(ca)
    const ours = await loaded.credentials.applyToHTTPSOptions({}).catch((e: unknown) => e)
    const theirs = await clientNode([config]).catch((e: unknown) => e)
    expect(ours).toMatchObject({ code: 'ENOENT', path: ca })
    expect(theirs).toMatchObject({ code: 'ENOENT', path: ca })
  })
})

describe('loadKubeConfig', () => {
  it('reads a plain kubeconfig itself and leaves an exec plugin to client-node', async () => {
    const [plainFile] = PLAIN[0]![1]()
    const [execFile] = NOT_PLAIN[0]![1]()
    const ours = await loadKubeConfig({ env: { KUBECONFIG: plainFile } })
    const theirs = await loadKubeConfig({ env: { KUBECONFIG: execFile } })
    expect(ours).toMatchObject({
      reader: 'plain',
      server: 'https://k.example:6443',
      context: 'x',
      credentials: { rotates: false, viaProxy: false }
    })
    expect(theirs).toMatchObject({
      reader: 'client-node',
      server: 'https://h',
      credentials: { rotates: true, viaProxy: false }
    })
  })

  it('reports a kubeconfig client-node refuses as before, naming the file', async () => {
    const [bad] = NOT_PLAIN.find(([name]) => name.startsWith('a cluster without'))![1]()
    await expect(loadKubeConfig({ env: { KUBECONFIG: bad } })).rejects.toThrow(
      `cannot read kubeconfig ${bad}: clusters[1].cluster.server is missing`
    )
  })
})
