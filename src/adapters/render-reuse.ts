/**
 * Whether a render made in one checkout of a repository holds for another checkout
 * (docs/renderers.md#reusing-a-render): a pull request's base is rendered from a `git worktree`
 * while the head renders from the workspace, and most manifests are the same in both. A render
 * is a function of what the renderer read, so when every question it asked the head's files
 * gets the same answer from the base's, the base's render is the head's. Anything not compared
 * here (a glob, a walk, a path outside the repository) makes the render count as not reusable.
 */
import { createHash } from 'node:crypto'
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { isWithin } from '../config/confinement.js'
import type { RecordedRead } from '../state/render-record.js'

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
export async function sameAnswers(
  reads: readonly RenderRead[],
  checkout: TwinCheckout
): Promise<boolean> {
  const unique = new Map(reads.map((read) => [`${read[0]}\0${read[1]}`, read]))
  const answers = await Promise.all(
    [...unique.values()].map(async ([kind, file]) => {
      const twin = counterpart(file, checkout.head, checkout.base)
      if (twin === undefined) return false
      const [a, b] = await Promise.all([
        answerOf(kind, file, checkout.head),
        answerOf(kind, twin, checkout.base)
      ])
      return a !== undefined && b !== undefined && a.equals(b)
    })
  )
  return answers.every(Boolean)
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
export async function answersDigest(
  reads: readonly RecordedRead[],
  root: string,
  asked = new Map<string, Promise<Buffer | undefined>>()
): Promise<string | undefined> {
  const files = reads.map(([kind, relative]) => {
    const file = path.join(root, ...relative.split('/'))
    return ANSWERED.has(kind) && isWithin(file, root) ? file : undefined
  })
  if (files.includes(undefined)) return undefined
  const answers = await Promise.all(
    reads.map(([kind], i) => {
      const question = `${kind}\0${files[i]!}`
      let answer = asked.get(question)
      if (answer === undefined) asked.set(question, (answer = answerOf(kind, files[i]!, root)))
      return answer
    })
  )
  const hash = createHash('sha256')
  for (const [i, [kind, relative]] of reads.entries()) {
    const answer = answers[i]
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
export async function sameTree(file: string, twin: string, budget = 10_000): Promise<boolean> {
  let left = budget
  const walk = async (a: string, b: string): Promise<boolean> => {
    if (--left < 0) return false
    const [sa, sb] = await Promise.all([kindOf(a), kindOf(b)])
    if (sa !== sb) return false
    if (sa === 'file') return (await contents(a)).equals(await contents(b))
    if (sa !== 'dir') return true
    const [la, lb] = await Promise.all([listing(a), listing(b)])
    if (!la.equals(lb)) return false
    for (const name of await readdir(a)) {
      if (!(await walk(path.join(a, name), path.join(b, name)))) return false
    }
    return true
  }
  return walk(file, twin)
}

/**
 * One answer as bytes, so that answers compare with equals() (a tag first: an error never
 * equals a file that happens to hold its text); undefined: cannot compare.
 */
async function answerOf(kind: string, file: string, root: string): Promise<Buffer | undefined> {
  switch (kind) {
    case 'file':
      return contents(file)
    case 'kind':
      return Buffer.from(await kindOf(file))
    case 'list':
      return listing(file)
    case 'abs': {
      const [real, realRoot] = await Promise.all([
        realpath(file).then((r) => `ok ${r}`, errorText),
        realpath(root)
      ])
      if (!real.startsWith('ok ')) return Buffer.from(real)
      const resolved = real.slice(3)
      return isWithin(resolved, realRoot)
        ? Buffer.from(`in ${path.relative(realRoot, resolved)}`)
        : undefined
    }
    default:
      return undefined
  }
}

async function contents(file: string): Promise<Buffer> {
  return readFile(file).then(
    (bytes) => Buffer.concat([Buffer.from('ok '), bytes]),
    (error: unknown) => Buffer.from(errorText(error))
  )
}

async function listing(dir: string): Promise<Buffer> {
  return Buffer.from(
    await readdir(dir).then((names) => `ok ${JSON.stringify(names.sort())}`, errorText)
  )
}

async function kindOf(file: string): Promise<string> {
  return stat(file).then(
    (s) => (s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other'),
    // A dangling symlink: stat fails, lstat still finds it.
    (error: unknown) =>
      lstat(file).then(
        () => 'dangling',
        () => errorText(error)
      )
  )
}

function errorText(error: unknown): string {
  return `error ${(error as NodeJS.ErrnoException).code ?? 'unknown'}`
}
