// Why a render program stopped, read from what it wrote: a program serves many renders, and
// kustomize logs deprecation warnings for each, so Go's fatal error may come after many
// kilobytes of them (src/adapters/render/go-program.ts, src/adapters/render/native-program.ts).
import { afterAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { RenderProgramStoppedError } from '../../../src/adapters/render/go-program.js'
import { nativeProgramHost } from '../../../src/adapters/render/native-program.js'

const warning = "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n"
const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-stopped-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('RenderProgramStoppedError', () => {
  it("shows Go's fatal error, not the warnings logged before it", () => {
    const error = new RenderProgramStoppedError(
      warning.repeat(3) + 'fatal error: out of memory (80062744 bytes held, limit 67108864)\n'
    )
    expect(error.message).toBe(
      'the render module stopped: fatal error: out of memory (80062744 bytes held, limit 67108864) '
    )
    expect(error.outOfMemory).toBe(true)
  })

  it('shows a panic and its first lines; a warning that says "out of memory" is not one', () => {
    const error = new RenderProgramStoppedError(
      '# Warning: the chart ran out of memory last time\npanic: boom\n\ngoroutine 1 [running]:\n'
    )
    expect(error.message).toBe('the render module stopped: panic: boom  goroutine 1 [running]:')
    expect(error.outOfMemory).toBe(false)
  })

  it('shows what there is when Go said nothing fatal', () => {
    expect(new RenderProgramStoppedError('exit code 3').message).toBe(
      'the render module stopped: exit code 3'
    )
  })
})

describe('a native program that stops after a long log', () => {
  it('is read for its last words: out of memory after 100 KiB of warnings', async () => {
    // A stand-in for the program's exit (the real one: integration/render/native.test.ts).
    const program = path.join(dir, 'stops')
    writeFileSync(
      program,
      `#!/bin/sh\nfor i in $(seq 1500); do echo "${warning.trim()}" >&2; done\n` +
        'echo "fatal error: out of memory (1 bytes held, limit 0)" >&2\nexit 2\n',
      { mode: 0o755 }
    )
    const seen: [boolean, string][] = []
    const host = nativeProgramHost(program, {
      timeoutError: () => new Error('timeout'),
      stoppedError: (outOfMemory, message) => {
        seen.push([outOfMemory, message])
        return new Error(message)
      }
    })
    await expect(host.call('{"op":"versions"}')).rejects.toThrow(
      'the render module stopped: fatal error: out of memory'
    )
    expect(seen.map(([outOfMemory]) => outOfMemory)).toEqual([true])
  })
})
