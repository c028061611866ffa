/**
 * src/health/kstatus.ts against kstatus itself: __tests__/fixtures/kstatus/expected.json is what
 * sigs.k8s.io/cli-utils/pkg/kstatus/status v0.37.2 computed for every object of the corpus
 * (src/go/kstatus-corpus; __tests__/integration/health/kstatus-corpus.test.ts keeps it current).
 */
import { describe, expect, it } from '@jest/globals'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parseAllDocuments } from 'yaml'
import { computeStatus, crashLoopingContainers } from '../../../src/health/kstatus.js'
import type { JsonObject } from '../../../src/go/json-value.js'

const dir = path.resolve(import.meta.dirname, '../../fixtures/kstatus')

interface Expected {
  key: string
  status: string
  message: string
  conditions: { type: string; status: string; reason: string; message: string }[]
}

const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected[]

function corpus(): [string, JsonObject][] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))
        .map((d) => d.toJS() as JsonObject | null)
        .filter((o): o is JsonObject => o !== null)
        .map((o): [string, JsonObject] => {
          const meta = o.metadata as JsonObject
          return [`${file}/${o.kind as string}/${meta.name as string}`, o]
        })
    )
}

describe('kstatus parity', () => {
  const objects = corpus()

  it('covers the corpus kstatus computed (at least 30 objects, same keys)', () => {
    expect(objects.length).toBeGreaterThanOrEqual(30)
    expect(objects.map(([key]) => key)).toEqual(expected.map((e) => e.key))
  })

  // The corpus's one clock-dependent case (an Unschedulable Pod) has timestamps far on either
  // side of any clock, so the real clock gives kstatus's answer.
  it.each(objects)('%s', (key, object) => {
    const want = expected.find((e) => e.key === key)
    expect(computeStatus(object, Date.now())).toEqual({
      status: want?.status,
      message: want?.message,
      conditions: want?.conditions
    })
  })

  it('names the containers waiting in CrashLoopBackOff', () => {
    const pod = objects.find(([key]) => key === 'pod.yaml/Pod/crashloop')?.[1] as JsonObject
    expect(crashLoopingContainers(pod)).toEqual(['app', 'worker'])
  })
})
