/**
 * Render records on the real files (docs/renderers.md#skipping-unchanged-renders): a kustomize
 * render's questions to the file system, noted by the render program, asked again of the
 * checkout and digested with the engine's build identity and the manifest's settings.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { RenderRecords } from '../../engine/ports.js'
import type { RenderModule } from '../../render/ports.js'
import { entriesDigest, recordKey, type RenderRecord } from '../../state/render-record.js'
import { answersDigest, recordedReads } from './reuse.js'

/** Written by scripts/stamp-build.mjs next to the bundle: the digest of everything in dist/. */
export const BUILD_ID_FILE = 'build-id.txt'

/**
 * Records over `module`'s renders. `codeDir` is the bundle's directory (its build identity is in
 * BUILD_ID_FILE) or src/ when running from source (then a digest of the sources, so a record
 * made by other code never holds).
 */
export function createRenderRecords(
  module: Pick<RenderModule, 'readsOf'>,
  codeDir: string
): RenderRecords {
  let engine: Promise<string> | undefined
  const engineId = () => (engine ??= buildIdentity(codeDir))
  // The files do not change during a run: each question is answered once.
  const asked = new Map<string, Buffer | undefined>()
  return {
    async recordOf(text, root, manifest, entries) {
      const reads = module.readsOf?.(text)
      const recorded = reads && recordedReads(reads, root)
      // An absolute path of this checkout in the output would not hold for another checkout.
      if (recorded === undefined || text.includes(root)) return undefined
      const answers = answersDigest(recorded, root, asked)
      if (answers === undefined) return undefined
      const subject = { engine: await engineId(), manifest }
      return { reads: recorded, key: recordKey(subject, answers), entries: entriesDigest(entries) }
    },
    async holds(record: RenderRecord, root, manifest) {
      const answers = answersDigest(record.reads, root, asked)
      if (answers === undefined) return false
      return recordKey({ engine: await engineId(), manifest }, answers) === record.key
    }
  }
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
