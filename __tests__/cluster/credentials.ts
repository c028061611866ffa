// Files the test API server authenticates with: a service-account signing key, a static
// token file with the two test users, and the kubeconfigs that use those tokens.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'

/** A static-token user of the test cluster. */
export interface TokenUser {
  name: string
  token: string
  groups: string[]
}

export const ADMIN_USER = 'tazuna-admin'
export const READER_USER = 'tazuna-reader'

/** The admin (group system:masters, bypasses RBAC) and the read-only reader. */
export function makeUsers(): { admin: TokenUser; reader: TokenUser } {
  return {
    admin: { name: ADMIN_USER, token: newToken(), groups: ['system:masters'] },
    reader: { name: READER_USER, token: newToken(), groups: [] }
  }
}

/** The users the controllers of the cluster run as (static tokens like the test users). */
export interface ComponentUsers {
  /** Group system:masters: it runs every controller with its own credentials. */
  controllerManager: TokenUser
  /** The bootstrap RBAC of kube-apiserver grants this user what kube-scheduler needs. */
  scheduler: TokenUser
  /** Group system:masters: kwok writes Node and Pod status, Leases, and deletes Pods. */
  kwok: TokenUser
}

export function makeComponentUsers(): ComponentUsers {
  return {
    controllerManager: {
      name: 'system:kube-controller-manager',
      token: newToken(),
      groups: ['system:masters']
    },
    scheduler: { name: 'system:kube-scheduler', token: newToken(), groups: [] },
    kwok: { name: 'tazuna-kwok', token: newToken(), groups: ['system:masters'] }
  }
}

function newToken(): string {
  return randomBytes(24).toString('hex')
}

/** Writes the CSV for --token-auth-file: token,user,uid,"group1,group2". */
export function writeTokenFile(file: string, users: TokenUser[]): void {
  const rows = users.map((u) => `${u.token},${u.name},${u.name},"${u.groups.join(',')}"`)
  writeFileSync(file, rows.join('\n') + '\n', { mode: 0o600 })
}

/**
 * Writes an RSA-2048 private key (PKCS#1 PEM) usable for both
 * --service-account-key-file and --service-account-signing-key-file.
 */
export function writeServiceAccountKey(file: string): void {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' }
  })
  writeFileSync(file, privateKey, { mode: 0o600 })
}

/** What a kubeconfig for one test user needs. */
export interface KubeconfigSpec {
  file: string
  server: string
  caFile: string
  user: TokenUser
  namespace?: string
}

/** Writes a single-context kubeconfig (JSON, which is valid YAML) that verifies the server. */
export function writeKubeconfig(spec: KubeconfigSpec): void {
  const context = `tazuna-test-${spec.user.name}`
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'tazuna-test',
        cluster: { server: spec.server, 'certificate-authority': spec.caFile }
      }
    ],
    users: [{ name: spec.user.name, user: { token: spec.user.token } }],
    contexts: [
      {
        name: context,
        context: {
          cluster: 'tazuna-test',
          user: spec.user.name,
          ...(spec.namespace ? { namespace: spec.namespace } : {})
        }
      }
    ],
    'current-context': context
  }
  writeFileSync(spec.file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 })
}

/** Path helper so every file of one cluster lives under its work dir. */
export function clusterPaths(workDir: string) {
  return {
    etcdData: path.join(workDir, 'etcd-data'),
    certDir: path.join(workDir, 'certs'),
    caFile: path.join(workDir, 'certs', 'apiserver.crt'),
    saKey: path.join(workDir, 'sa.key'),
    tokenFile: path.join(workDir, 'tokens.csv'),
    adminKubeconfig: path.join(workDir, 'admin.kubeconfig'),
    readerKubeconfig: path.join(workDir, 'reader.kubeconfig'),
    controllerManagerKubeconfig: path.join(workDir, 'kube-controller-manager.kubeconfig'),
    schedulerKubeconfig: path.join(workDir, 'kube-scheduler.kubeconfig'),
    kwokKubeconfig: path.join(workDir, 'kwok.kubeconfig'),
    controllerManagerLog: path.join(workDir, 'kube-controller-manager.log'),
    schedulerLog: path.join(workDir, 'kube-scheduler.log'),
    kwokLog: path.join(workDir, 'kwok.log'),
    etcdLog: path.join(workDir, 'etcd.log'),
    apiserverLog: path.join(workDir, 'kube-apiserver.log'),
    auditPolicy: path.join(workDir, 'audit-policy.yaml'),
    auditLog: path.join(workDir, 'audit.log'),
    stateFile: path.join(workDir, 'cluster.json')
  }
}
