/**
 * The risk pass (docs/risks.md) timed in-process, for `npm run bench`'s `risk-pass` scenario:
 * the same repository as the scenario's `state diff --content` (raw shape, every object
 * changed, no risky change), parsed from the generated files rather than rendered, keyed and
 * hashed as the engine does, then `assessRisks` over both sides: once cold (a CLI process runs
 * it once, before the JIT has seen it), then `--warm` more times. Prints one JSON line:
 * `{ objects, entries, risks, coldMs, warmMedianMs }`. Not a test: it asserts nothing about
 * time; it fails only if the pass finds a risk (the scenario must have none).
 *
 * Run by scripts/bench.ts as `node --experimental-transform-types --import ./ts-resolve.mjs`
 * (src/ uses TypeScript that type stripping alone does not take).
 */
import { parseArgs } from 'node:util'
import { parseAllDocuments } from 'yaml'
import type { JsonObject } from '../../src/go/yaml.js'
import { objectsByKey } from '../../src/report/content-diff.js'
import { assessRisks, type ObjectsByKey } from '../../src/risk/assess.js'
import type { DiffEntry } from '../../src/state/diff.js'
import { computeContentHash } from '../../src/state/hash.js'
import { benchRepoFiles, manifestNames, type BenchRepoOptions } from './repo.js'

const { values: args } = parseArgs({
  options: {
    id: { type: 'string' },
    manifests: { type: 'string' },
    'objects-per-manifest': { type: 'string' },
    layers: { type: 'string' },
    warm: { type: 'string', default: '20' }
  }
})

/** Objects of every manifest of one side of the repository, by manifest and state key. */
function sideOf(options: BenchRepoOptions): ObjectsByKey {
  const files = benchRepoFiles(options)
  return new Map(
    manifestNames(options).map((manifest) => {
      const text = files.get(`manifests/${manifest}/objects.yaml`) ?? ''
      const objects = parseAllDocuments(text).map((doc) => doc.toJS() as JsonObject)
      return [manifest, objectsByKey(manifest, objects)]
    })
  )
}

/** The Diff of before → head: modified entries where the ContentHash differs. */
function diffOf(before: ObjectsByKey, head: ObjectsByKey) {
  return [...head].map(([manifest, objects]) => ({
    manifest,
    entries: [...objects].flatMap(([key, obj]): DiffEntry[] => {
      const old = before.get(manifest)?.get(key)
      const oldHash = old === undefined ? undefined : computeContentHash(old)
      const newHash = computeContentHash(obj)
      if (oldHash === newHash) return []
      return [
        oldHash === undefined
          ? { type: 'added', key, newHash }
          : { type: 'modified', key, oldHash, newHash }
      ]
    })
  }))
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function main(): void {
  const options: BenchRepoOptions = {
    id: args.id ?? 'risk',
    shape: 'raw',
    manifests: Number(args.manifests ?? 50),
    objectsPerManifest: Number(args['objects-per-manifest'] ?? 60),
    layers: Number(args.layers ?? 5)
  }
  const before = sideOf(options)
  const head = sideOf({ ...options, modifyEvery: 1 })
  const manifests = diffOf(before, head)
  const input = { manifests, before, head, prune: true }
  const time = (): { ms: number; risks: number } => {
    const started = performance.now()
    const risks = assessRisks(input)
    return { ms: performance.now() - started, risks: risks.length }
  }
  const cold = time()
  if (cold.risks !== 0)
    throw new Error(`the scenario must have no risk, the pass found ${cold.risks}`)
  const warm = Array.from({ length: Number(args.warm) }, () => time().ms)
  const objects = [...head.values()].reduce((n, m) => n + m.size, 0)
  const entries = manifests.reduce((n, m) => n + m.entries.length, 0)
  process.stdout.write(
    JSON.stringify({ objects, entries, risks: 0, coldMs: cold.ms, warmMedianMs: median(warm) }) +
      '\n'
  )
}

main()
