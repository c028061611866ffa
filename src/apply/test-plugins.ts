/**
 * Test plugins (docs/compatibility.md#test-plugins): `WaitUntil` (a CEL condition over one live
 * object) and `ExistNonExist`, run after a manifest and after all manifests (`spec.tests`), with
 * Tazuna's retry loop.
 */
import { Environment } from '@marcbachmann/cel-js'
import type { JsonValue } from '../go/yaml.js'
import type { Clock, Cluster, ObjectRef } from './ports.js'

/** The `resource` of a test: which kind to GET. */
export interface TestResource {
  apiVersion?: string
  kind?: string
}

/** One `tests[]` entry of tazuna.yaml (field names as in the file). */
export interface TestPluginSpec {
  type?: string
  minConsecutiveSuccessCount?: number
  minConsecutiveFailureCount?: number
  timeoutSeconds?: number
  intervalSeconds?: number
  waitUntil?: { resource?: TestResource; namespace?: string; name?: string; condition?: string }
  existNonExist?: {
    resource?: TestResource
    namespace?: string
    name?: string
    shouldExist?: boolean
  }
}

/** A test that can never pass (bad type, bad CEL): fails at once instead of looping. */
export class TestDefinitionError extends Error {
  override name = 'TestDefinitionError'
}

type Attempt = () => Promise<void>

/**
 * Runs one test to completion: first attempt at once, then every `intervalSeconds` (0 → 2 s);
 * passes after `minConsecutiveSuccessCount` (0 → 1) successes in a row; fails after
 * `minConsecutiveFailureCount` failures in a row (0 → never) or when `timeoutSeconds`
 * (0 → none, current upstream code) runs out.
 */
export async function runTestPlugin(
  spec: TestPluginSpec,
  deps: { cluster: Cluster; clock: Clock }
): Promise<void> {
  const attempt = attemptFor(spec, deps.cluster)
  const successes = Math.max(1, spec.minConsecutiveSuccessCount ?? 0)
  const failures = Math.max(0, spec.minConsecutiveFailureCount ?? 0)
  const intervalMs = (spec.intervalSeconds || 2) * 1000
  const deadline = spec.timeoutSeconds ? deps.clock.now() + spec.timeoutSeconds * 1000 : Infinity
  const recent: (string | undefined)[] = []
  for (;;) {
    recent.push(
      await attempt().then(
        () => undefined,
        (error: unknown) => messageOf(error)
      )
    )
    if (recent.length > Math.max(successes, failures)) recent.shift()
    if (lastAll(recent, successes, (r) => r === undefined)) return
    if (failures > 0 && lastAll(recent, failures, (r) => r !== undefined)) {
      throw new Error(
        `aborting test after ${failures} consecutive failures (last error: ${goQuote(recent.at(-1) ?? '')})`
      )
    }
    const left = deadline - deps.clock.now()
    if (left <= 0) throw new Error('aborting test: context deadline exceeded')
    await deps.clock.sleep(Math.min(intervalMs, left))
    if (deps.clock.now() >= deadline) throw new Error('aborting test: context deadline exceeded')
  }
}

function attemptFor(spec: TestPluginSpec, cluster: Cluster): Attempt {
  switch (spec.type) {
    case 'WaitUntil':
      return waitUntilAttempt(spec.waitUntil ?? {}, cluster)
    case 'ExistNonExist':
      return existAttempt(spec.existNonExist ?? {}, cluster)
    default:
      throw new TestDefinitionError(`unsupported type: ${spec.type ?? ''}`)
  }
}

function refOf(target: { resource?: TestResource; namespace?: string; name?: string }): ObjectRef {
  const namespace = target.namespace ?? ''
  return {
    apiVersion: target.resource?.apiVersion ?? '',
    kind: target.resource?.kind ?? '',
    ...(namespace === '' ? {} : { namespace }),
    name: target.name ?? ''
  }
}

const celEnvironment = new Environment().registerVariable('object', 'dyn')

// The object is bound as one dynamic variable `object`. Whole numbers become CEL ints (BigInt)
// and the rest doubles, as cel-go sees an unstructured object (int64 / float64).
function waitUntilAttempt(
  target: NonNullable<TestPluginSpec['waitUntil']>,
  cluster: Cluster
): Attempt {
  const condition = target.condition ?? ''
  const program = compileCondition(condition)
  const ref = refOf(target)
  return async () => {
    const live = await cluster.get(ref)
    if (live === undefined) throw new Error(`${ref.kind} ${nsName(ref)} not found`)
    if (program({ object: toCelValue(live) }) !== true) {
      throw new Error(`condition ${goQuote(condition)} is not satisfied (resource: ${nsName(ref)})`)
    }
  }
}

function compileCondition(condition: string): (context: Record<string, unknown>) => unknown {
  let program: ReturnType<Environment['parse']>
  try {
    program = celEnvironment.parse(condition)
  } catch (error) {
    throw new TestDefinitionError(
      `condition ${goQuote(condition)} is not valid CEL: ${messageOf(error)}`
    )
  }
  const checked = program.check()
  if (!checked.valid) {
    throw new TestDefinitionError(
      `condition ${goQuote(condition)} is not valid CEL: ${messageOf(checked.error)}`
    )
  }
  if (checked.type !== 'bool') {
    throw new TestDefinitionError(
      `condition ${goQuote(condition)} must be a bool expression, got ${checked.type ?? '?'}`
    )
  }
  return (context) => program(context) as unknown
}

function existAttempt(
  target: NonNullable<TestPluginSpec['existNonExist']>,
  cluster: Cluster
): Attempt {
  const ref = refOf(target)
  const shouldExist = target.shouldExist === true
  return async () => {
    const exists = (await cluster.get(ref)) !== undefined
    if (shouldExist && !exists)
      throw new Error(`resource not found (resource: ${ref.kind} ${nsName(ref)})`)
    if (!shouldExist && exists)
      throw new Error(`resource exists (resource: ${ref.kind} ${nsName(ref)})`)
  }
}

/** A JSON value as cel-js should see it: integers as BigInt (CEL int), others unchanged. */
export function toCelValue(value: JsonValue): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value
  if (Array.isArray(value)) return value.map(toCelValue)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = toCelValue(v)
    return out
  }
  return value
}

function lastAll<T>(items: readonly T[], n: number, ok: (t: T) => boolean): boolean {
  return items.length >= n && items.slice(-n).every(ok)
}

function nsName(ref: ObjectRef): string {
  return `${ref.namespace ?? ''}/${ref.name}`
}

function messageOf(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
}

// Go's %q for the strings seen here; JSON string syntax is the same for printable text.
function goQuote(s: string): string {
  return JSON.stringify(s)
}
