// Finishes ncc's output (called by scripts/bundle.sh): node scripts/finish-bundle.mjs DIST STATS
//
// ncc splits every `await import()` into a chunk of its own (the cluster adapters and
// @kubernetes/client-node, which check mode and build never load), but `--minify` minifies only
// index.js, and `--license` lists only the packages of the last chunk it writes. So this step
// 1. minifies every chunk with terser (pinned in package.json; same input, same bytes, so
//    scripts/check-dist.sh stays byte-exact), and
// 2. puts every module's factory in every file in parentheses: V8 then compiles it in the one
//    pass that parses its file, instead of pre-parsing it there and parsing it again when the
//    bundle requires it (docs/benchmarks.md#eager-module-factories), and
// 3. writes licenses.txt for every package whose code is in any emitted file, from ncc's
//    webpack stats (`--stats-out`), in ncc's format: name, licence, licence text, blank line.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'acorn'
import { minify } from 'terser'

const [dist, statsFile] = process.argv.slice(2)
if (!dist || !statsFile) throw new Error('usage: finish-bundle.mjs DIST STATS')
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const stats = JSON.parse(readFileSync(statsFile, 'utf8'))

await minifyChunks()
for (const file of emittedScripts()) markFactoriesCalled(path.join(dist, file))
writeFileSync(path.join(dist, 'licenses.txt'), licenseText(bundledPackages()))

/** Every emitted chunk but index.js (which ncc minified already). */
async function minifyChunks() {
  for (const chunk of stats.chunks) {
    for (const file of chunk.files) {
      if (file === 'index.js' || !file.endsWith('.js')) continue
      const target = path.join(dist, file)
      const result = await minify(readFileSync(target, 'utf8'), {
        module: true,
        ecma: 2020,
        compress: { passes: 1 },
        mangle: true,
        format: { comments: false }
      })
      if (result.code === undefined) throw new Error(`terser produced nothing for ${file}`)
      writeFileSync(target, result.code)
    }
  }
}

function emittedScripts() {
  return stats.chunks.flatMap((chunk) => chunk.files.filter((file) => file.endsWith('.js')))
}

/**
 * Wraps the factories of the file's module map (webpack's `{<id>:(e,t,r)=>{…},…}`, the value of
 * `var`/`export const modules`) in parentheses: V8 compiles a parenthesized function when it
 * parses the file, as it would an immediately invoked one, and every factory of a loaded chunk
 * is called. Fails when a file has no module map, so a change in ncc's output is noticed.
 */
function markFactoriesCalled(file) {
  const source = readFileSync(file, 'utf8')
  const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' })
  const factories = program.body
    .map((node) => (node.type === 'ExportNamedDeclaration' ? node.declaration : node))
    .filter((node) => node?.type === 'VariableDeclaration')
    .flatMap((node) => node.declarations.map((declaration) => declaration.init))
    .filter(isModuleMap)
    .flatMap((map) => map.properties.map((property) => property.value))
  if (factories.length === 0) throw new Error(`no webpack module map in ${file}`)
  let out = ''
  let at = 0
  for (const { start, end } of factories) {
    out += `${source.slice(at, start)}(${source.slice(start, end)})`
    at = end
  }
  writeFileSync(file, out + source.slice(at))
}

function isModuleMap(node) {
  return (
    node?.type === 'ObjectExpression' &&
    node.properties.length > 0 &&
    node.properties.every(
      (property) =>
        property.type === 'Property' &&
        property.key.type === 'Literal' &&
        typeof property.key.value === 'number' &&
        (property.value.type === 'ArrowFunctionExpression' ||
          property.value.type === 'FunctionExpression')
    )
  )
}

/** Package directories (absolute) of every module in any chunk, concatenated ones included. */
function bundledPackageDirs(webpackStats, context) {
  const dirs = new Set()
  // A concatenated module lists its parts in `modules`, each with an empty `chunks`.
  const visit = (module) => {
    module.modules?.forEach(visit)
    const dir = packageDirOf(module.name ?? '', context)
    if (dir !== undefined) dirs.add(dir)
  }
  webpackStats.modules.filter((m) => m.chunks.length > 0).forEach(visit)
  return dirs
}

function packageDirOf(moduleName, context) {
  if (!moduleName.includes('node_modules/')) return undefined
  const file = path.resolve(context, moduleName.replace(/ \+ \d+ modules$/, ''))
  const at = file.lastIndexOf(`${path.sep}node_modules${path.sep}`)
  const parts = file.slice(at + '/node_modules/'.length).split(path.sep)
  const name = parts[0].startsWith('@') ? parts.slice(0, 2).join(path.sep) : parts[0]
  return path.join(file.slice(0, at), 'node_modules', name)
}

function bundledPackages() {
  const byKey = new Map()
  // ncc's own webpack runtime is in every file; ncc lists itself for it too.
  const dirs = [...bundledPackageDirs(stats, root), path.join(root, 'node_modules/@vercel/ncc')]
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
    const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? '')
    const text = licenseFileText(dir)
    byKey.set(`${pkg.name}\n${license}\n${text}`, { name: pkg.name, license, text })
  }
  return [...byKey.values()].sort((a, b) =>
    a.name === b.name ? (a.text < b.text ? -1 : 1) : a.name < b.name ? -1 : 1
  )
}

function licenseFileText(dir) {
  const file = readdirSync(dir)
    .filter((f) => /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i.test(f))
    .sort()[0]
  if (file === undefined || !existsSync(path.join(dir, file))) return ''
  return readFileSync(path.join(dir, file), 'utf8').trim()
}

function licenseText(packages) {
  return packages.map((p) => `${p.name}\n${p.license}\n${p.text}\n`).join('\n')
}
