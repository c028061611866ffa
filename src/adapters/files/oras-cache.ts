/**
 * Tazuna's ORAS artifact cache on disk (OrasCache, src/render/oras/ports.ts), in the layout
 * the Tazuna CLI uses, so both share one cache (docs/compatibility.md#oras):
 * `<root>/blobs/<sha256-hex>/` holds an extracted artifact, `<root>/refs/<reference>` the
 * digest a tag resolved to. Writes go to a temporary directory inside `blobs/` that is renamed
 * into place, so a reader never sees half an artifact. Every directory handed out is granted
 * to the renderers' confinement (`grantRead`), and nothing else of the cache is.
 */
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile
} from 'node:fs/promises'
import path from 'node:path'
import { isWithin } from '../../config/confinement.js'
import type { ArchiveEntry } from '../../render/oras/archive.js'
import type { OrasCache } from '../../render/oras/ports.js'
import { resolveReal } from './real-path.js'

/**
 * Tazuna's cache directory: `$XDG_CACHE_HOME/tazuna/oras`, else `$HOME/.cache/tazuna/oras`;
 * undefined when neither variable is set (Go's os.UserHomeDir fails then too).
 */
export function orasCacheRoot(
  env: Readonly<Record<string, string | undefined>>
): string | undefined {
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'tazuna', 'oras')
  if (env.HOME) return path.join(env.HOME, '.cache', 'tazuna', 'oras')
  return undefined
}

/** The cache at `root`; `grantRead` is told each artifact directory before it is returned. */
export function createOrasCache(
  root: string,
  grantRead: (dir: string) => Promise<void>
): OrasCache {
  const blobs = path.join(root, 'blobs')
  const refs = path.join(root, 'refs')
  const granted = async (dir: string): Promise<string> => {
    await grantRead(dir)
    return dir
  }
  return {
    root,
    async readRef(refKey) {
      const text = await readFile(path.join(refs, refKey), 'utf8').catch(() => undefined)
      return text === undefined ? undefined : text.trim()
    },
    async writeRef(refKey, digest) {
      await mkdir(refs, { recursive: true })
      const tmp = path.join(refs, `ref-${process.pid}-${Math.random().toString(36).slice(2)}`)
      await writeFile(tmp, digest)
      await rename(tmp, path.join(refs, refKey)).catch(async (error: unknown) => {
        await rm(tmp, { force: true })
        throw error
      })
    },
    async blobDir(digestKey) {
      const dir = path.join(blobs, digestKey)
      const info = await stat(dir).catch(() => undefined)
      return info?.isDirectory() ? granted(dir) : undefined
    },
    removeBlob: (digestKey) => rm(path.join(blobs, digestKey), { recursive: true, force: true }),
    async storeBlob(digestKey, entries) {
      await mkdir(blobs, { recursive: true })
      const tmp = await mkdtemp(path.join(blobs, 'extract-'))
      const dir = path.join(blobs, digestKey)
      try {
        await writeEntries(tmp, entries)
        await refuseEscapingSymlinks(tmp, entries)
        await rename(tmp, dir).catch(async (error: unknown) => {
          // Another process extracted the same digest first: use its copy.
          if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw error
        })
      } finally {
        await rm(tmp, { recursive: true, force: true })
      }
      return granted(dir)
    }
  }
}

/** Creates the checked entries (archive.ts) below `dir`, which is new and empty. */
async function writeEntries(dir: string, entries: readonly ArchiveEntry[]): Promise<void> {
  for (const entry of entries) {
    const target = path.join(dir, entry.name)
    const fail = (error: unknown) =>
      new Error(
        `oras extract: ${entry.kind} ${JSON.stringify(entry.name)}: ${(error as Error).message}`,
        { cause: error }
      )
    try {
      if (entry.kind === 'directory') {
        await mkdir(target, { recursive: true, mode: 0o755 })
        continue
      }
      await mkdir(path.dirname(target), { recursive: true, mode: 0o755 })
      if (entry.kind === 'file') {
        // A later entry of the same name replaces the file (archive.ts refused symlinks here).
        await rm(target, { force: true })
        await writeFile(target, entry.data, { mode: entry.mode, flag: 'wx' })
      } else if (entry.kind === 'symlink') {
        await symlink(entry.target, target)
      } else {
        await link(path.join(dir, entry.target), target)
      }
    } catch (error) {
      throw fail(error)
    }
  }
}

/**
 * archive.ts checks each symlink's target by its text; a chain of symlinks can still lead out
 * (`a -> sub/up/..` with `sub/up -> ..`). Resolved on disk, every one must stay inside.
 */
async function refuseEscapingSymlinks(
  dir: string,
  entries: readonly ArchiveEntry[]
): Promise<void> {
  const root = await realpath(dir)
  for (const entry of entries) {
    if (entry.kind !== 'symlink') continue
    const file = path.join(dir, entry.name)
    if (!(await lstat(file)).isSymbolicLink()) continue
    const real = await resolveReal(file)
    if (!isWithin(real, root)) {
      throw new Error(
        `oras extract: ${JSON.stringify(entry.name)}: link target escapes dest: ` +
          `it resolves outside the artifact`
      )
    }
  }
}
