// The identity of a bundle's inputs: node scripts/source-id.mjs [REPO]
//
// Prints the sha256 of every file scripts/bundle.sh builds dist/ from (src/, including the Go
// programs' sources and pins, the bundle scripts, package.json, package-lock.json and
// tsconfig.json; names and bytes, in byte order of their names). scripts/bundle.sh writes it to
// dist/source-id.txt, so scripts/demo.sh can tell in a second whether the committed dist/ was
// built from the sources in the working tree and run it instead of rebuilding (minutes on a
// cold machine: the three Go programs). scripts/check-dist.sh keeps the committed file honest.
// The Go version is not an input: another Go builds other bytes of the same programs.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/bundle.sh',
  'scripts/bundle-extra.sh',
  'scripts/finish-bundle.mjs',
  'scripts/merge-licenses.mjs',
  'scripts/source-id.mjs',
  'scripts/stamp-build.mjs'
]
const TREES = ['src']

/** The bundle inputs under REPO, as repository-relative paths with forward slashes. */
function inputs(repo) {
  const fromTrees = TREES.flatMap((tree) =>
    readdirSync(path.join(repo, tree), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(repo, path.join(entry.parentPath, entry.name)))
  )
  return [...FILES, ...fromTrees]
    .map((file) => file.split(path.sep).join('/'))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}

const repo = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'))
const hash = createHash('sha256')
for (const file of inputs(repo)) {
  const bytes = readFileSync(path.join(repo, file))
  hash.update(`${file}\0${bytes.length}\0`).update(bytes)
}
console.log(hash.digest('hex'))
