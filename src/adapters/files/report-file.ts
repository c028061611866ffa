/**
 * Reads the report mode publish posts (input `report`): report.json, or the directory that holds
 * it (where actions/download-artifact put the artifact). The file is untrusted, so it must be a
 * regular file, not a symbolic link, and at most `maxBytes` long; it is the only file read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs'
import path from 'node:path'

/** report.json's text; throws naming the path when it cannot be read or is too large. */
export function readReportFile(given: string, workspace: string, maxBytes: number): string {
  const resolved = path.resolve(workspace, given)
  const file = statSync(resolved, { throwIfNoEntry: false })?.isDirectory()
    ? path.join(resolved, 'report.json')
    : resolved
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ELOOP' ? 'it is a symbolic link' : code === 'ENOENT' ? 'no such file' : code
    throw new Error(`input "report": cannot read ${file} (${why})`, { cause: error })
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new Error(`input "report": ${file} is not a regular file`)
    if (stat.size > maxBytes) {
      throw new Error(
        `input "report": ${file} has ${stat.size} bytes, more than the ${maxBytes} a report may have`
      )
    }
    const buffer = Buffer.alloc(stat.size)
    const read = readSync(fd, buffer, 0, stat.size, 0)
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
