// `apply --wait [--wait-timeout D]` on the command line (docs/health.md#wait), against the test
// cluster's controllers and kwok: a Deployment whose image never pulls fails the run with every
// object not Current named and its cause in the same log line (one message, so that the
// action's log group of the manifest holds it); a healthy one exits 0 saying how long the
// layer took; `--wait-timeout` needs `--wait`.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { runCommand, writeProject } from '../../support/cli-project.js'
import { namespace, uniqueName } from '../../support/cluster.js'

function deployment(ns: string, name: string, failure?: string): JsonObject {
  const labels = { app: name, ...(failure === undefined ? {} : { 'tazuna.test/failure': failure }) }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${name}:1` }] }
      }
    }
  }
}

describe('apply --wait', () => {
  it('fails naming the object that is not Current at the timeout, with its cause in the log', async () => {
    const ns = uniqueName('cli-wait')
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-wait-'))
    const file = writeProject(dir, [
      { name: 'app', objects: [namespace(ns), deployment(ns, 'web', 'image-pull-backoff')] }
    ])
    const out = await runCommand(applyCommand, file, {
      options: { sync: true, wait: true, 'wait-timeout': '6s' }
    })
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(
      `error: layer 0 is not healthy: not Current within 6s: Deployment ${ns}/web is InProgress (`
    )
    expect(out.stderr).toMatch(
      new RegExp(
        `unhealthy object manifest=app resource=Deployment ${ns}/web status=InProgress: [^\n]*\\\\n  web-[a-z0-9]+-[a-z0-9]+/app: ImagePullBackOff \\(image registry\\.invalid/web:1\\)`
      )
    )
  })

  it('exits 0 once the layer is healthy, saying how long it took', async () => {
    const ns = uniqueName('cli-wait-ok')
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-wait-ok-'))
    const file = writeProject(dir, [
      { name: 'app', objects: [namespace(ns), deployment(ns, 'web')] }
    ])
    const out = await runCommand(applyCommand, file, { options: { sync: true, wait: true } })
    expect({ code: out.code, stderr: out.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/layer 0 healthy in \d+\.\d s \(2 objects Current\)/)
    })
  })

  it('refuses --wait-timeout without --wait', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-wait-flag-'))
    const file = writeProject(dir, [{ name: 'app', objects: [] }])
    const out = await runCommand(applyCommand, file, {
      options: { sync: true, 'wait-timeout': '5s' }
    })
    expect(out).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--wait-timeout requires --wait')
    })
  })
})
