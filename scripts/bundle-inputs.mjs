// The files scripts/bundle.sh builds dist/ from: src/ (the Go programs' sources and pins
// included), the bundle scripts, package.json, package-lock.json and tsconfig.json. Shared by
// scripts/source-id.mjs (their digest) and scripts/source-commit.mjs (the commit that last
// changed them), so both name the same inputs.
import { readdirSync } from 'node:fs'
import path from 'node:path'

/** Files and trees, repository-relative with forward slashes. */
export const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/bundle.sh',
  'scripts/bundle-extra.sh',
  'scripts/bundle-inputs.mjs',
  'scripts/finish-bundle.mjs',
  'scripts/merge-licenses.mjs',
  'scripts/source-commit.mjs',
  'scripts/source-id.mjs',
  'scripts/stamp-build.mjs'
]
export const INPUT_TREES = ['src']

/** Every input file under REPO, repository-relative with forward slashes, in byte order. */
export function bundleInputs(repo) {
  const fromTrees = INPUT_TREES.flatMap((tree) =>
    readdirSync(path.join(repo, tree), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(repo, path.join(entry.parentPath, entry.name)))
  )
  return [...INPUT_FILES, ...fromTrees]
    .map((file) => file.split(path.sep).join('/'))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}
