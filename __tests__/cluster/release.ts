// The Kubernetes release the test cluster runs: the one the wrapper module pins that
// scripts/build-tools.sh builds for TAZUNA_TEST_K8S (unset: tools/k8s, else tools/k8s-<minor>).
// Tests compare /version and helm's stamped KubeVersion with it (README.md in this directory).
import { readFileSync } from 'node:fs'
import path from 'node:path'

export interface Release {
  /** e.g. v1.37.2 */
  version: string
  /** e.g. 37 */
  minor: string
}

export function clusterRelease(env: NodeJS.ProcessEnv = process.env): Release {
  const variant = env.TAZUNA_TEST_K8S
  const goMod = path.join(
    import.meta.dirname,
    'tools',
    variant ? `k8s-${variant}` : 'k8s',
    'go.mod'
  )
  const m = /^\s*k8s\.io\/kubernetes (v1\.(\d+)\.\d+)\b/m.exec(readFileSync(goMod, 'utf8'))
  if (!m?.[1] || !m[2]) throw new Error(`${goMod}: no k8s.io/kubernetes requirement`)
  return { version: m[1], minor: m[2] }
}
