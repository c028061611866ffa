// Jest globalSetup of the integration project: opens the run's temporary root (see
// __tests__/support/run-root.ts) and starts one test cluster in it for the whole run.
// The tools are built beforehand by scripts/build-tools.sh (scripts/test.sh runs it); this
// only finds them. Test workers inherit the variables set here.
import { mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'

declare global {
  /** Set by globalSetup, called by globalTeardown (same process). */
  var __tazunaTestClusterStop: (() => Promise<void>) | undefined
}

export default async function globalSetup(): Promise<void> {
  // Jest loads this file with Node's own loader, so the harness is imported through
  // ts-resolve.mjs (see there: why) instead of static imports.
  await import(new URL('./ts-resolve.mjs', import.meta.url).href)
  const { openRunRoot } = await import('../support/run-root.js')
  const { startCluster, stopCluster } = await import('./launcher.js')
  const { resolveToolPaths } = await import('./tool-paths.js')
  const keep = process.env.TAZUNA_TEST_KEEP_CLUSTER === '1'
  openRunRoot({ keep })
  const tools = resolveToolPaths()
  const cluster = await startCluster({
    kubeApiserverBin: tools.kubeApiserver,
    etcdBin: tools.etcd,
    controllers: {
      kubeControllerManagerBin: tools.kubeControllerManager,
      kubeSchedulerBin: tools.kubeScheduler,
      kwokBin: tools.kwok
    },
    keepWorkDir: keep
  })
  globalThis.__tazunaTestClusterStop = () => stopCluster(cluster)

  const binDir = path.join(cluster.workDir, 'bin')
  mkdirSync(binDir)
  symlinkSync(tools.helm, path.join(binDir, 'helm'))
  symlinkSync(tools.kustomize, path.join(binDir, 'kustomize'))
  if (tools.tazuna) symlinkSync(tools.tazuna, path.join(binDir, 'tazuna'))

  Object.assign(process.env, {
    KUBECONFIG: cluster.adminKubeconfig,
    TAZUNA_TEST_ADMIN_KUBECONFIG: cluster.adminKubeconfig,
    TAZUNA_TEST_READER_KUBECONFIG: cluster.readerKubeconfig,
    TAZUNA_TEST_CLUSTER_DIR: cluster.workDir,
    HELM_BIN: tools.helm,
    KUSTOMIZE_BIN: tools.kustomize,
    TAZUNA_TEST_TOOLS_DIR: binDir,
    ...(tools.tazuna ? { TAZUNA_BIN: tools.tazuna } : {})
  })
  // Like tazuna's e2e job: client libraries must not mistake the runner for a pod.
  delete process.env.KUBERNETES_SERVICE_HOST
  delete process.env.KUBERNETES_SERVICE_PORT
}
