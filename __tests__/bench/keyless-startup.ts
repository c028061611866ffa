/**
 * What the AuthenticationConfiguration of README.md#keyless costs at cluster start: starts the
 * bare test control plane (etcd + kube-apiserver) `--rounds` times with and without it,
 * alternating, and prints kube-apiserver's time to /readyz and, with the JWT authenticator, the
 * time from /readyz until it first accepts an ID token of the emulated issuer (it fetches the
 * discovery document and JWKS in the background). Not a test: figures depend on the machine.
 * Run (tool paths from scripts/build-tools.sh's env.sh):
 *   node --import ./__tests__/cluster/ts-resolve.mjs __tests__/bench/keyless-startup.ts [--rounds 3]
 */
import { request } from '../cluster/bootstrap.js'
import { startCluster, stopCluster } from '../cluster/launcher.js'
import { resolveToolPaths } from '../cluster/tool-paths.js'
import { OidcIssuer } from '../github-emulator/oidc.js'

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 3)
const tools = resolveToolPaths()
const issuer = await OidcIssuer.start()
const config = JSON.stringify({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'AuthenticationConfiguration',
  jwt: [
    {
      issuer: {
        url: issuer.issuer,
        certificateAuthority: issuer.caPem,
        audiences: ['tazuna-action']
      },
      claimValidationRules: [
        { expression: "claims.repository == 'acme/deploy'", message: 'not acme/deploy' }
      ],
      claimMappings: { username: { claim: 'sub', prefix: 'github:' } }
    }
  ]
})
const token = issuer.tokenFor(
  { repository: 'acme/deploy', event: 'push', ref: 'refs/heads/main' },
  'tazuna-action'
)
const rows: string[] = []
for (let i = 0; i < rounds; i++) {
  for (const withConfig of [false, true]) {
    const cluster = await startCluster({
      kubeApiserverBin: tools.kubeApiserver,
      etcdBin: tools.etcd,
      ...(withConfig ? { authenticationConfig: config } : {})
    })
    let acceptedMs = ''
    if (withConfig) {
      const ready = Date.now()
      // 403 (authenticated, no RBAC) means the token was accepted; 401 that it is not yet.
      while (
        (
          await request(
            { server: cluster.server, caFile: cluster.caFile, token },
            'GET',
            '/api/v1/namespaces'
          )
        ).status === 401
      ) {
        await new Promise((r) => setTimeout(r, 20))
      }
      acceptedMs = String(Date.now() - ready)
    }
    rows.push(
      `| ${i + 1} | ${withConfig ? 'yes' : 'no'} | ${cluster.startup.apiserverReadyMs} | ${acceptedMs} |`
    )
    await stopCluster(cluster)
  }
}
await issuer.close()
process.stdout.write(
  [
    '| round | authentication config | /readyz ms | token accepted after /readyz, ms |',
    '|---|---|---|---|',
    ...rows
  ].join('\n') + '\n'
)
