/**
 * Whether a render made in one checkout of a repository holds for another checkout
 * (docs/renderers.md#reusing-a-render): a pull request's base is rendered from a `git worktree`
 * while the head renders from the workspace, and most manifests are the same in both. A render
 * is a function of what the renderer read, so when every question it asked the head's files
 * gets the same answer from the base's, the base's render is the head's. Anything not compared
 * here (a glob, a walk, a path outside the repository) makes the render count as not reusable.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { isWithin } from '../../config/confinement.js'
import type { RecordedRead } from '../../state/render-record.js'

/** Two checkouts of one repository: the head's root, and the base's. */
export interface TwinCheckout {
  head: string
  base: string
}

/** A question a renderer asked the file system: its kind and the path it was about. */
export type RenderRead = readonly [kind: string, file: string]

/** The path in `to` that `file` (absolute, in `from`) corresponds to; undefined outside `from`. */
export function counterpart(file: string, from: string, to: string): string | undefined {
  if (!path.isAbsolute(file) || !isWithin(path.normalize(file), from)) return undefined
  return path.join(to, path.relative(from, path.normalize(file)))
}

/**
 * Whether every question in `reads` (asked of the head's files) gets the same answer from the
 * base's: "file" the same bytes, "kind" the same kind, "list" the same entries, "abs" the same
 * place relative to the root (each, or the same error code).
 */
export function sameAnswers(reads: readonly RenderRead[], checkout: TwinCheckout): boolean {
  const unique = new Map(reads.map((read) => [`${read[0]}\0${read[1]}`, read]))
  return [...unique.values()].every(([kind, file]) => {
    const twin = counterpart(file, checkout.head, checkout.base)
    if (twin === undefined) return false
    const a = answerOf(kind, file, checkout.head)
    const b = a && answerOf(kind, twin, checkout.base)
    return a !== undefined && b !== undefined && a.equals(b)
  })
}

/**
 * The reads of a render made under `root` as a record keeps them (relative to `root`, sorted,
 * unique; docs/renderers.md#skipping-unchanged-renders); undefined when one of them cannot be
 * asked again: a glob, a walk, the network, a path outside `root`.
 */
export function recordedReads(
  reads: readonly RenderRead[],
  root: string
): RecordedRead[] | undefined {
  const unique = new Map<string, RecordedRead>()
  for (const [kind, file] of reads) {
    if (!ANSWERED.has(kind) || !path.isAbsolute(file)) return undefined
    const normal = path.normalize(file)
    if (!isWithin(normal, root)) return undefined
    const relative = path.relative(root, normal).split(path.sep).join('/')
    unique.set(`${kind}\0${relative}`, [kind, relative])
  }
  return [...unique.keys()].sort().map((k) => unique.get(k)!)
}

/**
 * sha256 over the answers the files under `root` give now to recorded reads; undefined when one
 * cannot be answered (a kind not asked here, a path that leaves `root`). `asked` keeps answers
 * for other calls of the same run (manifests that share a base ask the same questions).
 */
export function answersDigest(
  reads: readonly RecordedRead[],
  root: string,
  asked: Map<string, Buffer | undefined> = new Map()
): string | undefined {
  const files = reads.map(([kind, relative]) => {
    const file = path.join(root, ...relative.split('/'))
    return ANSWERED.has(kind) && isWithin(file, root) ? file : undefined
  })
  if (files.includes(undefined)) return undefined
  const hash = createHash('sha256')
  for (const [i, [kind, relative]] of reads.entries()) {
    const question = `${kind}\0${files[i]!}`
    if (!asked.has(question)) asked.set(question, answerOf(kind, files[i]!, root))
    const answer = asked.get(question)
    if (answer === undefined) return undefined
    hash.update(`${kind}\0${relative}\0${answer.length}\0`).update(answer)
  }
  return hash.digest('hex')
}

/** The kinds of question answerOf can ask again. */
const ANSWERED = new Set(['file', 'kind', 'list', 'abs'])

/**
 * Whether the chart at `file` (a directory, followed through symlinks as Helm's loader follows
 * them, or an archive) holds the same entries and bytes as at `twin`; false beyond `budget`
 * entries.
 */
export function sameTree(file: string, twin: string, budget = 10_000): boolean {
  let left = budget
  const walk = (a: string, b: string): boolean => {
    if (--left < 0) return false
    const [sa, sb] = [kindOf(a), kindOf(b)]
    if (sa !== sb) return false
    if (sa === 'file') return contents(a).equals(contents(b))
    if (sa !== 'dir') return true
    if (!listing(a).equals(listing(b))) return false
    return readdirSync(a).every((name) => walk(path.join(a, name), path.join(b, name)))
  }
  return walk(file, twin)
}

// The questions are answered with synchronous calls: a few small local files per manifest, asked
// on the way to its render. The 140 questions of a 20-manifest repository take ~5 ms this way,
// ~20 ms as promises on the thread pool (docs/benchmarks.md#answers-in-one-pass).

/**
 * One answer as bytes, so that answers compare with equals() (a tag first: an error never
 * equals a file that happens to hold its text); undefined: cannot compare.
 */
function answerOf(kind: string, file: string, root: string): Buffer | undefined {
  switch (kind) {
    case 'file':
      return contents(file)
    case 'kind':
      return Buffer.from(kindOf(file))
    case 'list':
      return listing(file)
    case 'abs': {
      const real = attempt(() => `ok ${realpathSync.native(file)}`)
      if (!real.startsWith('ok ')) return Buffer.from(real)
      const resolved = real.slice(3)
      const realRoot = realpathSync.native(root)
      return isWithin(resolved, realRoot)
        ? Buffer.from(`in ${path.relative(realRoot, resolved)}`)
        : undefined
    }
    default:
      return undefined
  }
}

function contents(file: string): Buffer {
  try {
    return Buffer.concat([Buffer.from('ok '), readFileSync(file)])
  } catch (error) {
    return Buffer.from(errorText(error))
  }
}

function listing(dir: string): Buffer {
  return Buffer.from(attempt(() => `ok ${JSON.stringify(readdirSync(dir).sort())}`))
}

function kindOf(file: string): string {
  try {
    const s = statSync(file)
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other'
  } catch (error) {
    // A dangling symlink: stat fails, lstat still finds it.
    return attempt(() => (lstatSync(file), 'dangling'), error)
  }
}

/** `answer()`, or the error text of what it threw (of `instead`, when given). */
function attempt(answer: () => string, instead?: unknown): string {
  try {
    return answer()
  } catch (error) {
    return errorText(instead ?? error)
  }
}

function errorText(error: unknown): string {
  return `error ${(error as NodeJS.ErrnoException).code ?? 'unknown'}`
}
