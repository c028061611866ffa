// Stamps a bundle (called last by scripts/bundle.sh): node scripts/stamp-build.mjs DIST
//
// Writes DIST/build-id.txt, the sha256 of every other file of the bundle (names and bytes, in
// byte order of their names): the engine's identity in render records, so a record made by
// another build never holds (docs/renderers.md#skipping-unchanged-renders). The same bundle
// gives the same digest, so scripts/check-dist.sh stays byte-exact.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const [dist] = process.argv.slice(2)
if (!dist) throw new Error('usage: stamp-build.mjs DIST')
const STAMP = 'build-id.txt'
const files = readdirSync(dist, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => path.relative(dist, path.join(entry.parentPath, entry.name)))
  .filter((file) => file !== STAMP)
  .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
const hash = createHash('sha256')
for (const file of files) {
  const bytes = readFileSync(path.join(dist, file))
  hash.update(`${file.split(path.sep).join('/')}\0${bytes.length}\0`).update(bytes)
}
writeFileSync(path.join(dist, STAMP), `${hash.digest('hex')}\n`)
