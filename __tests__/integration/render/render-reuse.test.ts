// A pull request's base renders from a worktree, a second checkout of the repository; where a
// render's files are the same in both, the head's render is reused (docs/renderers.md#reusing-a-render).
// Every reused render is compared with a fresh render of the base by the same module: reuse
// must never change what the base renders, only whether it is rendered again.
import { afterAll, describe, expect, it } from '@jest/globals'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createGoRenderModule } from '../../../src/adapters/render/module.js'
import type { TwinCheckout } from '../../../src/adapters/render/reuse.js'
import type { HelmReleaseRender } from '../../../src/render/ports.js'
import { renderModuleFiles } from '../../support/render-module.js'

const module = createGoRenderModule({ locate: renderModuleFiles })
const temp = mkdtempSync(path.join(os.tmpdir(), 'tazuna-reuse-'))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const files: Record<string, string> = {
  'app/kustomization.yaml': [
    'namespace: shop',
    'resources: [deployment.yaml, ../shared]',
    'configMapGenerator:',
    '  - name: settings',
    '    files: [settings.conf]'
  ].join('\n'),
  'app/deployment.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n',
  'app/settings.conf': 'level=info\n',
  'shared/kustomization.yaml': 'resources: [role.yaml]\n',
  'shared/role.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  a: "1"\n',
  'chart/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.0.0\n',
  'chart/values.yaml': 'greeting: hello\n',
  'chart/templates/cm.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  greeting: {{ .Values.greeting }}\n'
}

let next = 0
/** A head checkout with `files`, and a copy of it as the base (as `git worktree add` makes). */
function checkouts(): TwinCheckout {
  const head = path.join(temp, `head-${next}`)
  const base = path.join(temp, `base-${next++}`)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(head, name)), { recursive: true })
    writeFileSync(path.join(head, name), text)
  }
  cpSync(head, base, { recursive: true })
  return { head, base }
}

const release = (chart: string): HelmReleaseRender => ({
  name: 'demo',
  namespace: 'web',
  chart: { path: chart },
  values: [],
  includeCRDs: false,
  kubeVersion: '',
  apiVersions: []
})

/** Renders the head, then the base through the twin; returns the base's render and a fresh one. */
async function kustomizeBoth(checkout: TwinCheckout, root = checkout) {
  const head = await module.kustomize(path.join(checkout.head, 'app'))
  const before = module.counts()
  const twin = await module.twin(root).kustomize(path.join(checkout.base, 'app'))
  const reused = module.counts().reused - before.reused
  const fresh = await module.kustomize(path.join(checkout.base, 'app'))
  return { head, twin, fresh, reused }
}

describe('reusing the head render for the base', () => {
  it('reuses a kustomize render whose files are all the same', async () => {
    const result = await kustomizeBoth(checkouts())
    expect(result.reused).toBe(1)
    expect(result.twin).toBe(result.fresh)
    expect(result.twin).toBe(result.head)
    expect(result.twin).toContain('name: settings-')
  })

  it('renders again when a file krusty read differs (a generator input)', async () => {
    const checkout = checkouts()
    writeFileSync(path.join(checkout.base, 'app/settings.conf'), 'level=debug\n')
    const result = await kustomizeBoth(checkout)
    expect(result.reused).toBe(0)
    expect(result.twin).toBe(result.fresh)
    expect(result.twin).not.toBe(result.head)
    expect(result.twin).toContain('level=debug')
  })

  it('renders again when a base it includes differs (a directory outside the manifest)', async () => {
    const checkout = checkouts()
    writeFileSync(
      path.join(checkout.base, 'shared/role.yaml'),
      files['shared/role.yaml']!.replace('"1"', '"2"')
    )
    const result = await kustomizeBoth(checkout)
    expect(result.reused).toBe(0)
    expect(result.twin).toBe(result.fresh)
    expect(result.twin).toContain('a: "2"')
  })

  it('renders again when a file appears where krusty only looked (and so fails as krusty does)', async () => {
    const checkout = checkouts()
    writeFileSync(path.join(checkout.base, 'app/kustomization.yml'), 'resources: []\n')
    await module.kustomize(path.join(checkout.head, 'app'))
    const before = module.counts()
    const twin = module.twin(checkout).kustomize(path.join(checkout.base, 'app'))
    await expect(twin).rejects.toThrow(/multiple kustomization files/i)
    expect(module.counts().reused).toBe(before.reused)
  })

  it('renders again when a file it read is a symlink to another place in the base', async () => {
    const checkout = checkouts()
    const conf = path.join(checkout.base, 'app/settings.conf')
    rmSync(conf)
    writeFileSync(path.join(checkout.base, 'app/other.conf'), 'level=warn\n')
    symlinkSync('other.conf', conf)
    const result = await kustomizeBoth(checkout)
    expect(result.reused).toBe(0)
    expect(result.twin).toBe(result.fresh)
    expect(result.twin).toContain('level=warn')
  })

  it('does not reuse a render that read outside the checkouts it was told about', async () => {
    const checkout = checkouts()
    // As if the repository were app/ only: ../shared is outside it.
    const root = { head: path.join(checkout.head, 'app'), base: path.join(checkout.base, 'app') }
    const result = await kustomizeBoth(checkout, root)
    expect(result.reused).toBe(0)
    expect(result.twin).toBe(result.fresh)
  })

  it('renders the base itself when the head never rendered that manifest', async () => {
    const checkout = checkouts()
    const before = module.counts()
    const twin = await module.twin(checkout).kustomize(path.join(checkout.base, 'app'))
    expect(module.counts().reused).toBe(before.reused)
    expect(twin).toContain('name: web')
  })

  it('reuses a Helm release whose chart directory is the same, and not once a template differs', async () => {
    const checkout = checkouts()
    const head = await module.helm(release(path.join(checkout.head, 'chart')))
    const before = module.counts().reused
    const same = await module.twin(checkout).helm(release(path.join(checkout.base, 'chart')))
    expect(module.counts().reused).toBe(before + 1)
    expect(same).toBe(head)
    expect(same).toBe(await module.helm(release(path.join(checkout.base, 'chart'))))

    writeFileSync(
      path.join(checkout.base, 'chart/templates/cm.yaml'),
      files['chart/templates/cm.yaml']!.replace('greeting:', 'salutation:')
    )
    const changed = await module.twin(checkout).helm(release(path.join(checkout.base, 'chart')))
    expect(module.counts().reused).toBe(before + 1)
    expect(changed).toContain('salutation: hello')
  })

  it('does not reuse a Helm release whose values differ', async () => {
    const checkout = checkouts()
    await module.helm(release(path.join(checkout.head, 'chart')))
    const before = module.counts().reused
    const other = await module.twin(checkout).helm({
      ...release(path.join(checkout.base, 'chart')),
      values: [{ name: 'values.yaml', text: 'greeting: bye\n' }]
    })
    expect(module.counts().reused).toBe(before)
    expect(other).toContain('greeting: bye')
  })
})
