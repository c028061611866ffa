import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readReportFile } from '../../../src/adapters/files/report-file.js'

// The one file mode publish reads, on a real temporary directory.
let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tazuna-report-file-'))
  mkdirSync(join(root, 'artifact'))
  writeFileSync(join(root, 'artifact', 'report.json'), '{"schema":1}')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('readReportFile', () => {
  it('reads report.json, given itself or its directory, relative to the workspace', () => {
    expect(readReportFile('artifact/report.json', root, 100)).toBe('{"schema":1}')
    expect(readReportFile('artifact', root, 100)).toBe('{"schema":1}')
    expect(readReportFile(join(root, 'artifact'), '/', 100)).toBe('{"schema":1}')
  })

  it('refuses a symbolic link, which could point at any file of the runner', () => {
    writeFileSync(join(root, 'secret'), 'token')
    mkdirSync(join(root, 'linked'))
    symlinkSync(join(root, 'secret'), join(root, 'linked', 'report.json'))
    expect(() => readReportFile('linked', root, 100)).toThrow(
      `input "report": cannot read ${join(root, 'linked', 'report.json')} (it is a symbolic link)`
    )
  })

  it('refuses a file larger than the cap before reading it', () => {
    expect(() => readReportFile('artifact', root, 5)).toThrow(
      /report\.json has 12 bytes, more than the 5 a report may have/
    )
  })

  it('names the path it looked for when there is no report', () => {
    expect(() => readReportFile('missing', root, 100)).toThrow(
      `input "report": cannot read ${join(root, 'missing')} (no such file)`
    )
  })
})
