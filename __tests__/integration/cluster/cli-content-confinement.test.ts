// `state diff --content` when a helmfile chart reads a file through a symlink that leaves the
// repository: the refusal names the repository the file belongs to as the user knows it — the
// checkout's path for a file of the working tree (the head), "the base commit's tree" and the
// file's path in it for a file of the base, never the temporary worktree the base renders from.
// The head and the base engines share one render module, so both repositories' policies are in
// force at every read (src/adapters/engine-ports.ts); the message is the owning one's
// (src/config/confinement.ts owningPolicy). Both Helm builds: native, and WebAssembly.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig, adminSession, namespace, uniqueName } from '../../support/cluster.js'
import { commitAll } from '../../support/git-repo.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

let ns: string
beforeAll(async () => {
  const admin = await adminSession()
  ns = uniqueName('ns')
  await admin.cluster.apply(namespace(ns))
  admin.close()
})

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

const template = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: {{ .Release.Namespace }}\ndata:\n  k: v\n`

/**
 * A repository with a helmfile manifest whose chart template `templates/cm.yaml` is, at
 * `linkedAt` ('base': the committed base; 'head': the working tree only), a symlink to a file
 * outside the repository; a plain file otherwise.
 */
function repository(linkedAt: 'base' | 'head') {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cli-confine-'))
  dirs.push(root)
  const repo = path.join(root, 'repo')
  const outside = path.join(root, 'outside', 'cm.yaml')
  write(outside, template('outside'))
  const manifest = uniqueName('app')
  write(
    path.join(repo, 'tazuna.yaml'),
    `spec:\n  manifests:\n    - name: ${manifest}\n      type: helmfile\n      path: ./helmfile.yaml\n` +
      '      helmfile:\n        kubeVersion: v1.32.0\n'
  )
  write(
    path.join(repo, 'helmfile.yaml'),
    `releases:\n  - name: r\n    namespace: ${ns}\n    chart: ./chart\n`
  )
  write(path.join(repo, 'chart', 'Chart.yaml'), 'apiVersion: v2\nname: chart\nversion: 0.1.0\n')
  const cm = path.join(repo, 'chart', 'templates', 'cm.yaml')
  mkdirSync(path.dirname(cm), { recursive: true })
  const link = (): void => symlinkSync(outside, cm)
  const plain = (): void => write(cm, template('inside'))
  if (linkedAt === 'base') link()
  else plain()
  commitAll(repo, 'base')
  rmSync(cm)
  if (linkedAt === 'base') plain()
  else link()
  return { repo, file: path.join(repo, 'tazuna.yaml'), outside }
}

const builds = [
  ['native', {}],
  ['WebAssembly', { TAZUNA_RENDER_NATIVE: 'off' }]
] as const

describe.each(builds)('the refusal of a file outside (%s Helm)', (_, buildEnv) => {
  const stateDiff = (file: string) =>
    runCliInProcess(['state', 'diff', '--content', '--base', 'HEAD', '-f', file], {
      KUBECONFIG: adminKubeconfig(),
      ...buildEnv
    })

  it('names the checkout for a file of the working tree', async () => {
    const { repo, file, outside } = repository('head')
    const result = await stateDiff(file)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `${path.join(repo, 'chart', 'templates', 'cm.yaml')} is outside the repository ${repo} ` +
        `(it resolves to ${outside}); files outside it are not read.`
    )
    expect(result.stderr).not.toContain('tazuna-base-')
  })

  it("names the base commit's tree, and the file's path in it, for a file of the base", async () => {
    const { file, outside } = repository('base')
    const result = await stateDiff(file)
    // A base that cannot be rendered is a notice, not a failure: the Diff shows hashes only.
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('No content diffs: the base commit could not be rendered')
    expect(result.stderr).toContain(
      "chart/templates/cm.yaml in the base commit's tree is outside the repository " +
        `(it resolves to ${outside}); files outside it are not read.`
    )
    expect(result.stderr).not.toContain('tazuna-base-')
  })
})
