/**
 * The file ports (ConfigFiles for loading tazuna.yaml, BuildFiles for rendering) over the local
 * file system. Errors are Node's own, so callers can word them by `code` as Go's os package does.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { ConfigFiles } from '../config/files.js'
import type { BuildFiles, FileKind, TempDir } from '../render/ports.js'

/** Where temporary directories go: the runner's temp dir in a workflow, else the OS's. */
export interface NodeFilesOptions {
  tempDir?: string
}

/** Both file ports over node:fs. */
export function createNodeFiles(options: NodeFilesOptions = {}): ConfigFiles & BuildFiles {
  return {
    readText: (file) => readFile(file, 'utf8'),
    exists: async (file) => (await kindOf(file)) !== undefined,
    kindOf,
    makeTempDir: async (prefix) =>
      privateTempDir(await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), prefix)))
  }
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
