// `serve` mode behind scripts/cluster.sh: owns one test cluster until SIGTERM/SIGINT.
// Writes <stateDir>/env (export lines) once the cluster is ready and removes it on stop.
// Run as: node --import ./ts-resolve.mjs cluster-cli.ts serve <stateDir>
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describeCluster, startCluster, stopCluster } from './launcher.js'
import { resolveToolPaths } from './tool-paths.js'

async function serve(stateDir: string): Promise<void> {
  const tools = resolveToolPaths()
  const workDir = path.join(stateDir, 'run')
  rmSync(workDir, { recursive: true, force: true })
  const envFile = path.join(stateDir, 'env')
  const cluster = await startCluster({
    kubeApiserverBin: tools.kubeApiserver,
    etcdBin: tools.etcd,
    controllers: {
      kubeControllerManagerBin: tools.kubeControllerManager,
      kubeSchedulerBin: tools.kubeScheduler,
      kwokBin: tools.kwok
    },
    workDir,
    keepWorkDir: true // logs stay readable after `down`; the next `up` clears them
  })
  let stopping = false
  const stop = async (): Promise<void> => {
    if (stopping) return
    stopping = true
    rmSync(envFile, { force: true })
    await stopCluster(cluster)
    console.log('cluster stopped')
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())

  const q = (v: string): string => `'${v.replace(/'/g, `'\\''`)}'`
  const lines = {
    KUBECONFIG: cluster.adminKubeconfig,
    TAZUNA_TEST_ADMIN_KUBECONFIG: cluster.adminKubeconfig,
    TAZUNA_TEST_READER_KUBECONFIG: cluster.readerKubeconfig,
    TAZUNA_TEST_CLUSTER_DIR: cluster.workDir,
    HELM_BIN: tools.helm,
    KUSTOMIZE_BIN: tools.kustomize
  }
  const text = Object.entries(lines)
    .map(([k, v]) => `export ${k}=${q(v)}`)
    .concat('unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT')
    .join('\n')
  writeFileSync(`${envFile}.tmp`, text + '\n')
  renameSync(`${envFile}.tmp`, envFile) // scripts/cluster.sh polls for this file
  console.log(JSON.stringify(describeCluster(cluster), null, 2))
}

const [mode, stateDir] = process.argv.slice(2)
if (mode !== 'serve' || !stateDir) {
  console.error('usage: cluster-cli.ts serve <stateDir>')
  process.exitCode = 2
} else {
  serve(stateDir).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exitCode = 1
  })
}
