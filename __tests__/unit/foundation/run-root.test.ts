// The test run's temporary root (__tests__/support/run-root.ts): workers and their child
// processes see it as their temp dir, so removing it removes everything the run created.
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'

describe('the run root', () => {
  it('is the temp dir of test workers and of the processes they start', () => {
    const root = process.env.TAZUNA_TEST_TMP
    expect(path.basename(root ?? '')).toMatch(/^tazuna-test-run-/)
    expect(os.tmpdir()).toBe(root)
    const child = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], {
      encoding: 'utf8'
    })
    expect(child.trim()).toBe(root)
  })
})
