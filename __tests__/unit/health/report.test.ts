/**
 * Health in the published texts (src/report/health-markdown.ts, docs/health.md#reporting): the
 * glance lines the issue asks for, the one line without wait, and hostile text kept inert; the
 * container-state lines of src/health/cause.ts over Pods shaped as kwok's failure Stages report
 * them (__tests__/cluster/README.md#failing-pods).
 */
import { describe, expect, it } from '@jest/globals'
import { podProblems } from '../../../src/health/cause.js'
import { renderAppliedSection } from '../../../src/report/applied-section.js'
import { renderApplyMarkdown } from '../../../src/report/apply-markdown.js'
import { healthOutputs } from '../../../src/report/files.js'
import type { ApplyReport, LayerHealthNote, ObjectHealthNote } from '../../../src/report/model.js'

const counts = { added: 1, modified: 0, removed: 0, alwaysSync: 0, pruned: 0 }
const manifest = { manifest: 'app', result: 'applied' as const, counts, durationMs: 100 }

function object(
  name: string,
  status = 'Current',
  extra: Partial<ObjectHealthNote> = {}
): ObjectHealthNote {
  return {
    manifest: 'app',
    ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'web', name },
    status,
    message: status === 'Current' ? 'Deployment is available. Replicas: 1' : 'Ready: 0/1',
    ...(status === 'Current' ? { currentAfterMs: 47_600 } : {}),
    ...extra
  }
}

function report(health: (LayerHealthNote | null)[] | undefined, failure?: string): ApplyReport {
  return {
    config: 'tazuna.yaml',
    environment: '',
    sha: 'c0ffee',
    layers: [[manifest]],
    ...(health === undefined ? {} : { health }),
    ...(failure === undefined ? {} : { failure: { layer: 0, message: failure } })
  }
}

const glanceOf = (r: ApplyReport) =>
  renderAppliedSection({ report: r, sha: 'c0ffee' }, 60_000).split('\n')[1]

describe('health in the Applied section and the job summary', () => {
  it('says healthy, with the time, when every object is Current', () => {
    const r = report([
      {
        healthy: true,
        ended: 'current',
        durationMs: 48_200,
        timeout: '5m',
        objects: [object('web')]
      }
    ])
    expect(glanceOf(r)).toBe('### ✅ Applied and healthy in 48 s')
    expect(renderApplyMarkdown(r, { budget: 60_000 })).toContain(
      '**Healthy** in 48.2 s: 1 objects Current (`Deployment web/web` 47.6 s).'
    )
    expect(healthOutputs(r)).toEqual({ healthy: 'true', unhealthy: '0' })
  })

  it('counts and names the unhealthy objects, with status, message and cause', () => {
    const objects = [
      ...Array.from({ length: 11 }, (_, i) => object(`ok-${i}`)),
      object('web', 'InProgress', {
        reason: 'LessReady',
        cause: { pods: ['web-1/app: ImagePullBackOff (image r/app:1)'], events: [] }
      })
    ]
    const r = report(
      [{ healthy: false, ended: 'timeout', durationMs: 300_000, timeout: '5m', objects }],
      'layer 0 is not healthy: not Current within 5m: Deployment web/web is InProgress (LessReady: Ready: 0/1)'
    )
    expect(glanceOf(r)).toBe('### ❌ Applied, 1 of 12 objects unhealthy (`web`)')
    const summary = renderApplyMarkdown(r, { budget: 60_000 })
    expect(summary).toContain(
      '**Not healthy** after 5 min 0 s (not Current within `5m`): 1 of 12 objects.'
    )
    expect(summary).toContain(
      'Deployment web/web (manifest app): InProgress LessReady: Ready: 0/1\n  pod web-1/app: ImagePullBackOff (image r/app:1)'
    )
    expect(summary).toContain('#### Failure in layer 1\n\n```text\nnot Current within 5m:')
    expect(healthOutputs(r)).toEqual({ healthy: 'false', unhealthy: '1' })
  })

  it('says in one line that health was not checked without wait', () => {
    const r = report(undefined)
    const section = renderAppliedSection({ report: r, sha: 'c0ffee' }, 60_000)
    expect(section.split('\n')[1]).toBe('### ✅ Applied')
    expect(section).toContain('Health was not checked (input `wait` is false)')
    expect(renderApplyMarkdown(r, { budget: 60_000 })).toContain('Health was not checked')
    expect(healthOutputs(r)).toEqual({ healthy: '', unhealthy: '' })
  })

  it('keeps hostile event text inert: inside a text block whose fence outruns its backticks', () => {
    const hostile = '```\n<img src=x onerror=alert(1)> @team [link](http://x)'
    const r = report(
      [
        {
          healthy: false,
          ended: 'failed',
          durationMs: 1000,
          timeout: '5m',
          objects: [object('web', 'Failed', { cause: { pods: [], events: [hostile] } })]
        }
      ],
      'layer 0 is not healthy: x'
    )
    const summary = renderApplyMarkdown(r, { budget: 60_000 })
    const block = /(`{4,})text\n([\s\S]*?)\n\1\n/.exec(summary)
    expect(block?.[2]).toContain('<img src=x onerror=alert(1)>')
  })
})

describe('podProblems', () => {
  it('words the kubelet states kwok reports', () => {
    expect(
      podProblems({
        spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
        status: {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'app',
              state: {
                waiting: {
                  reason: 'ImagePullBackOff',
                  message: 'Back-off pulling image "registry.invalid/app:1"'
                }
              }
            }
          ]
        }
      })
    ).toEqual([
      'app: ImagePullBackOff (image registry.invalid/app:1): Back-off pulling image "registry.invalid/app:1"'
    ])
    expect(
      podProblems({
        status: {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'app',
              restartCount: 1,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 3, reason: 'Error' } }
            }
          ]
        }
      })
    ).toEqual(['app: CrashLoopBackOff, last exit code 3 (Error), restarted 1 times'])
    expect(
      podProblems({
        status: {
          phase: 'Pending',
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes' }
          ]
        }
      })
    ).toEqual(['not scheduled: Unschedulable: 0/3 nodes'])
  })
})
