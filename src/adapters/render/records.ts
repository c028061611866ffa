/**
 * Render records on the real files (docs/renderers.md#skipping-unchanged-renders): a render's
 * questions to the file system, noted by the render program, asked again of the checkout and
 * digested with the engine's build identity and the manifest's settings — and for a helmfile,
 * with every release's request (docs/renderers.md#helm-records).
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { isWithin } from '../../config/confinement.js'
import type { RenderRecords } from '../../engine/ports.js'
import type { RenderedSource } from '../../render/manifest.js'
import type { HelmReleaseRender, RenderModule } from '../../render/ports.js'
import { entriesDigest, recordKey, type RenderRecord } from '../../state/render-record.js'
import { answersDigest, recordedReads, type RenderRead } from './reuse.js'

/** Written by scripts/stamp-build.mjs next to the bundle: the digest of everything in dist/. */
export const BUILD_ID_FILE = 'build-id.txt'

/**
 * Records over `module`'s renders. `codeDir` is the bundle's directory (its build identity is in
 * BUILD_ID_FILE) or src/ when running from source (then a digest of the sources, so a record
 * made by other code never holds).
 */
export function createRenderRecords(
  module: Pick<RenderModule, 'readsOf' | 'helmFactsOf'>,
  codeDir: string
): RenderRecords {
  let engine: Promise<string> | undefined
  const engineId = () => (engine ??= buildIdentity(codeDir))
  // The files do not change during a run: each question is answered once.
  const asked = new Map<string, Buffer | undefined>()
  /** What a render depended on: its reads, and for a helmfile its requests' digest. */
  const sourceOf = (
    rendered: RenderedSource,
    root: string
  ): { reads: readonly RenderRead[]; requests?: string } | undefined => {
    if (rendered.type === 'kustomize') {
      const reads = module.readsOf?.(rendered.text)
      return reads === undefined ? undefined : { reads }
    }
    const reads: RenderRead[] = []
    for (const release of rendered.releases) {
      const facts = module.helmFactsOf?.(release)
      // A volatile call renders differently every time, as it would for Tazuna: never recorded.
      if (facts === undefined || facts.volatile.length > 0) return undefined
      reads.push(...facts.reads)
    }
    const requests = requestsDigest(rendered.releases, root)
    return requests === undefined ? undefined : { reads, requests }
  }
  const keyOf = async (manifest: string, answers: string, requests: string | undefined) => {
    const subject = { engine: await engineId(), manifest }
    // A kustomize key stays what it was before helmfiles were recorded.
    const digest =
      requests === undefined ? answers : sha256(JSON.stringify(['helm', answers, requests]))
    return recordKey(subject, digest)
  }
  return {
    async recordOf(rendered, root, manifest, entries) {
      // Asked as a manifest's applies go out: its reads and hashing wait until they are sent.
      await new Promise((resolve) => setImmediate(resolve))
      // An absolute path of this checkout in the output would not hold for another checkout.
      if (rendered.text.includes(root)) return undefined
      const source = sourceOf(rendered, root)
      const recorded = source && recordedReads(source.reads, root)
      if (source === undefined || recorded === undefined) return undefined
      const answers = answersDigest(recorded, root, asked)
      if (answers === undefined) return undefined
      const key = await keyOf(manifest, answers, source.requests)
      return { reads: recorded, key, entries: entriesDigest(entries) }
    },
    async holds(record: RenderRecord, root, manifest, releases) {
      const requests = releases && requestsDigest(releases, root)
      if (releases !== undefined && requests === undefined) return false
      const answers = answersDigest(record.reads, root, asked)
      if (answers === undefined) return false
      return (await keyOf(manifest, answers, requests)) === record.key
    }
  }
}

/**
 * sha256 over a helmfile's release requests in release order: a chart on disk by its path
 * relative to `root` (its files are among the reads), a downloaded chart by the digest of its
 * bytes. Undefined for a chart outside `root`.
 */
export function requestsDigest(
  releases: readonly HelmReleaseRender[],
  root: string
): string | undefined {
  const parts: unknown[] = []
  for (const {
    chart,
    name,
    namespace,
    values,
    includeCRDs,
    kubeVersion,
    apiVersions
  } of releases) {
    let identity: readonly string[]
    if ('path' in chart) {
      const file = path.normalize(chart.path)
      if (!path.isAbsolute(file) || !isWithin(file, root)) return undefined
      identity = ['path', path.relative(root, file).split(path.sep).join('/')]
    } else {
      identity = ['archive', createHash('sha256').update(chart.archive).digest('hex')]
    }
    parts.push([name, namespace, identity, values, includeCRDs, kubeVersion, apiVersions])
  }
  return sha256(JSON.stringify(parts))
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

async function buildIdentity(codeDir: string): Promise<string> {
  const stamped = await readFile(path.join(codeDir, BUILD_ID_FILE), 'utf8').catch(() => undefined)
  if (stamped !== undefined && /^[0-9a-f]{64}\n?$/.test(stamped)) return stamped.trim()
  const hash = createHash('sha256').update('source\n')
  const files = (await readdir(codeDir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(codeDir, path.join(entry.parentPath, entry.name)))
    .sort()
  for (const file of files) {
    const bytes = await readFile(path.join(codeDir, file))
    hash.update(`${file}\0${bytes.length}\0`).update(bytes)
  }
  return hash.digest('hex')
}
