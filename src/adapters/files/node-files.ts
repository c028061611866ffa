/**
 * The file ports (ConfigFiles for loading tazuna.yaml, BuildFiles for rendering) over the local
 * file system. Errors are Node's own, so callers can word them by `code` as Go's os package does.
 */
import { mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { confinementError, type PathPolicy } from '../../config/confinement.js'
import type { ConfigFiles } from '../../config/files.js'
import type { BuildFiles, FileKind, TempDir } from '../../render/ports.js'
import { resolvePolicy, resolveReal } from './real-path.js'
import { formatBytes, MAX_CONFIG_FILE_BYTES } from '../../objects/size-limits.js'

/** Where temporary directories go, and which directories reads may resolve into. */
export interface NodeFilesOptions {
  /** The runner's temp dir in a workflow, else the OS's. */
  tempDir?: string
  /** Without a policy every path is readable (tests of the renderers). */
  confine?: PathPolicy
}

/** The file ports, and a way to let reads into one more directory. */
export interface NodeFiles extends ConfigFiles, BuildFiles {
  /** Allows reads below `dir` from now on (an extracted oras artifact in the cache). */
  allowRead(dir: string): Promise<void>
}

/**
 * Both file ports over node:fs. With a policy, every read, existence check and kind check of a
 * path that resolves (symlinks followed) outside the root and the allowed directories rejects
 * with PathOutsideRepositoryError; the private temp dirs this adapter made, and directories
 * passed to allowRead, stay readable.
 */
export function createNodeFiles(options: NodeFilesOptions = {}): NodeFiles {
  const ownTempDirs: string[] = []
  const { confine } = options
  let realPolicy: Promise<PathPolicy> | undefined
  const guard = async (file: string): Promise<void> => {
    if (confine === undefined) return
    realPolicy ??= resolvePolicy(confine)
    const policy = await realPolicy
    const refused = confinementError(file, await resolveReal(file), {
      ...policy,
      allowed: [...policy.allowed, ...ownTempDirs]
    })
    if (refused !== undefined) throw refused
  }
  return {
    readText: async (file) => {
      await guard(file)
      await refuseLargeFile(file)
      return readFile(file, 'utf8')
    },
    exists: async (file) => {
      await guard(file)
      return (await kindOf(file)) !== undefined
    },
    kindOf: async (file) => {
      await guard(file)
      return kindOf(file)
    },
    allowRead: async (dir) => {
      ownTempDirs.push(await realpath(dir))
    },
    makeTempDir: async (prefix) => {
      const dir = await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), prefix))
      ownTempDirs.push(await realpath(dir))
      return privateTempDir(dir)
    }
  }
}

/**
 * Rejects, before reading, a regular file over MAX_CONFIG_FILE_BYTES
 * (docs/reliability.md#size-limits); the error's message is what callers show as the reason.
 */
async function refuseLargeFile(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined)
  if (info === undefined || !info.isFile() || info.size <= MAX_CONFIG_FILE_BYTES) return
  throw Object.assign(
    new Error(
      `the file is ${formatBytes(info.size)}, over the limit of ` +
        `${formatBytes(MAX_CONFIG_FILE_BYTES)} for a configuration file`
    ),
    { code: 'TAZUNA_FILE_TOO_LARGE' }
  )
}

async function kindOf(file: string): Promise<FileKind | undefined> {
  const info = await stat(file).catch(() => undefined)
  if (info === undefined) return undefined
  return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other'
}

function privateTempDir(dir: string): TempDir {
  return {
    path: dir,
    async writePrivate(name, text) {
      const file = path.join(dir, name)
      // Inline helm values may hold secrets from helmfile vars: owner-only from creation.
      await writeFile(file, text, { mode: 0o600 })
      return file
    },
    remove: () => rm(dir, { recursive: true, force: true })
  }
}
