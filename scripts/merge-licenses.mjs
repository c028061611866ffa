// Usage: node scripts/merge-licenses.mjs OUT IN... — one licence file for several of our
// Go programs (src/go/build-go.sh writes one per program): the first file whole,
// then every "== <module> <version>" section of the others that it does not have yet. The
// render programs share most of their modules; one file keeps dist/ within its budget.
import { readFileSync, writeFileSync } from 'node:fs'

const [out, first, ...rest] = process.argv.slice(2)
if (!out || !first) throw new Error('usage: merge-licenses.mjs OUT IN...')

/** The file's header (before the first section) and its sections, by their "== " line. */
function sections(text) {
  const parts = text.split(/^(?=== )/m)
  const header = parts[0].startsWith('== ') ? '' : parts.shift()
  return { header, sections: parts.map((part) => [part.split('\n', 1)[0], part]) }
}

let merged = readFileSync(first, 'utf8')
const seen = new Set(sections(merged).sections.map(([head]) => head))
for (const file of rest) {
  for (const [head, part] of sections(readFileSync(file, 'utf8')).sections) {
    if (seen.has(head)) continue
    seen.add(head)
    merged += (merged.endsWith('\n\n') ? '' : merged.endsWith('\n') ? '\n' : '\n\n') + part
  }
}
writeFileSync(
  out,
  merged.replace(
    /^Licences of the Go code compiled into \S+/,
    'Licences of the Go code compiled into render-kustomize.wasm.br, render-helm.wasm.br, render-kustomize-linux-*.zst and render-helm-linux-*.zst'
  )
)
