/**
 * The file access config loading needs, as a port (tests may pass an in-memory one), and its
 * node:fs implementation.
 */
import { readFile, stat } from 'node:fs/promises'

/** Reads user files for config loading and validation. */
export interface ConfigFiles {
  /** The file's text; rejects with the Node error (its `code` says why). */
  readText(path: string): Promise<string>
  /** Whether anything (file or directory) exists at `path`. */
  exists(path: string): Promise<boolean>
}

/** ConfigFiles over the local file system. */
export const nodeConfigFiles: ConfigFiles = {
  readText: (path) => readFile(path, 'utf8'),
  exists: (path) =>
    stat(path).then(
      () => true,
      () => false
    )
}

/** A Node file error as Go's os package words it (`no such file or directory`, ...). */
export function fileErrorText(error: unknown): string {
  const code = (error as { code?: string }).code
  const texts: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory'
  }
  return (code && texts[code]) ?? (error as Error).message
}
