// The identity of a bundle's inputs: node scripts/source-id.mjs [REPO]
//
// Prints the sha256 of every file scripts/bundle.sh builds dist/ from (scripts/bundle-inputs.mjs;
// names and bytes, in byte order of their names). scripts/bundle.sh writes it to
// dist/source-id.txt, so scripts/demo.sh can tell in a second whether the committed dist/ was
// built from the sources in the working tree and run it instead of rebuilding (minutes on a
// cold machine: the three Go programs). scripts/check-dist.sh keeps the committed file honest.
// The Go version is not an input: another Go builds other bytes of the same programs.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { bundleInputs as inputs } from './bundle-inputs.mjs'

const repo = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'))
const hash = createHash('sha256')
for (const file of inputs(repo)) {
  const bytes = readFileSync(path.join(repo, file))
  hash.update(`${file}\0${bytes.length}\0`).update(bytes)
}
console.log(hash.digest('hex'))
