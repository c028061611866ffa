/**
 * The file access config loading needs, as a port (tests may pass an in-memory one); its
 * node:fs implementation is src/adapters/files/node-files.ts.
 */

/** Reads user files for config loading and validation. */
export interface ConfigFiles {
  /** The file's text; rejects with the Node error (its `code` says why). */
  readText(path: string): Promise<string>
  /** Whether anything (file or directory) exists at `path`. */
  exists(path: string): Promise<boolean>
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
