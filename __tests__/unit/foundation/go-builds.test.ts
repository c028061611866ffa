import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

// The Go programs committed in dist/ change only when what builds them changes
// (docs/renderers.md#keeping-the-history-small): dist/go-builds.txt, written by
// scripts/bundle-extra.sh, names each program's sha256, the digest of its inputs (the module's
// sources, src/go/build-go.sh, the program and target) and the Go that built it. These tests
// hold that record to dist/, to the sources as they are, to CI's Go, and to the previous
// commit's record when the clone has it. No Go build runs here.
const root = join(import.meta.dirname, '..', '..', '..')
const recordPath = 'dist/go-builds.txt'

/** One line of dist/go-builds.txt. */
interface GoBuild {
  artifact: string
  sha256: string
  inputs: string
  go: string
}

/** Each Go program of dist/ and the build.sh invocation that makes it. */
const programs: { artifact: string; build: string[] }[] = [
  { artifact: 'gotemplate.wasm.br', build: ['src/go/template/engine/build.sh'] },
  { artifact: 'render-helm.wasm.br', build: ['src/go/render/module/build.sh', 'helm'] },
  {
    artifact: 'render-helm-linux-arm64.zst',
    build: ['src/go/render/module/build.sh', 'helm', 'native']
  },
  {
    artifact: 'render-helm-linux-x64.zst',
    build: ['src/go/render/module/build.sh', 'helm', 'native']
  },
  { artifact: 'render-kustomize.wasm.br', build: ['src/go/render/module/build.sh', 'kustomize'] },
  {
    artifact: 'render-kustomize-linux-arm64.zst',
    build: ['src/go/render/module/build.sh', 'kustomize', 'native']
  },
  {
    artifact: 'render-kustomize-linux-x64.zst',
    build: ['src/go/render/module/build.sh', 'kustomize', 'native']
  }
]

function parseRecord(text: string): Map<string, GoBuild> {
  const builds = new Map<string, GoBuild>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const [artifact = '', sha256 = '', inputs = '', go = ''] = line.split(' ')
    builds.set(artifact, { artifact, sha256, inputs, go })
  }
  return builds
}

/** The record in the working tree; fails naming the fix when there is none. */
function currentRecord(): Map<string, GoBuild> {
  let text: string
  try {
    text = readFileSync(join(root, recordPath), 'utf8')
  } catch {
    throw new Error(`${recordPath} is missing: run npm run bundle and commit dist/`)
  }
  return parseRecord(text)
}

/** The record at `rev`, or undefined when the clone lacks that commit or the file. */
function recordAt(rev: string): Map<string, GoBuild> | undefined {
  try {
    const text = execFileSync('git', ['show', `${rev}:${recordPath}`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    })
    return parseRecord(text)
  } catch {
    return undefined
  }
}

/** The inputs digest build-go.sh computes for a program now. */
function inputsOf(build: string[]): string {
  return execFileSync('bash', build, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, BUILD_GO_INPUTS: 'print' }
  }).trim()
}

/** Programs whose bytes changed from `before` to `after` while their inputs and Go did not. */
function changedWithoutInputs(before: Map<string, GoBuild>, after: Map<string, GoBuild>): string[] {
  return [...after.values()]
    .filter((now) => {
      const then = before.get(now.artifact)
      return then && then.sha256 !== now.sha256 && then.inputs === now.inputs && then.go === now.go
    })
    .map((now) => now.artifact)
}

describe('dist/go-builds.txt', () => {
  it('names every Go program of dist/ and nothing else', () => {
    const packed = readdirSync(join(root, 'dist')).filter((f) => /\.(wasm\.br|zst)$/.test(f))
    expect([...currentRecord().keys()].sort()).toEqual(packed.sort())
    expect(packed.sort()).toEqual(programs.map((p) => p.artifact).sort())
  })

  it.each(programs)('has the sha256 of dist/$artifact', ({ artifact }) => {
    const bytes = readFileSync(join(root, 'dist', artifact))
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    expect({ artifact, sha256 }).toEqual({
      artifact,
      sha256: currentRecord().get(artifact)?.sha256
    })
  })

  it.each(programs)('says dist/$artifact was built from the sources as they are', (program) => {
    const recorded = currentRecord().get(program.artifact)?.inputs
    // On a mismatch: the Go side changed and dist/ was not rebuilt (npm run bundle).
    expect({ artifact: program.artifact, inputs: inputsOf(program.build) }).toEqual({
      artifact: program.artifact,
      inputs: recorded
    })
  })

  it('says every program was built with the Go version CI builds with', () => {
    const workflow = readFileSync(join(root, '.github', 'workflows', 'check-dist.yml'), 'utf8')
    const pinned = /go-version:\s*'([^']+)'/.exec(workflow)?.[1]
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/)
    const gos = [...currentRecord().values()].map((b) => `${b.artifact} ${b.go}`)
    expect(gos.sort()).toEqual(programs.map((p) => `${p.artifact} go${pinned}`).sort())
  })

  it('changes a program’s sha256 only together with its inputs or Go, since the last commit', () => {
    // HEAD^ is missing from a shallow clone: then only the working tree is compared with HEAD.
    const pairs: [string, Map<string, GoBuild> | undefined, Map<string, GoBuild> | undefined][] = [
      ['HEAD^ → HEAD', recordAt('HEAD^'), recordAt('HEAD')],
      ['HEAD → working tree', recordAt('HEAD'), currentRecord()]
    ]
    for (const [label, before, after] of pairs) {
      if (!before || !after) continue
      expect({ label, changed: changedWithoutInputs(before, after) }).toEqual({
        label,
        changed: []
      })
    }
  })

  it('catches a program changed without its inputs (the check above can fail)', () => {
    const before = parseRecord('a.zst 1111 inputs go1.26.8\nb.zst 2222 inputs go1.26.8\n')
    const rebuilt = parseRecord('a.zst 1111 inputs go1.26.8\nb.zst 3333 inputs go1.26.8\n')
    const newInputs = parseRecord('a.zst 1111 inputs go1.26.8\nb.zst 3333 other go1.26.8\n')
    expect(changedWithoutInputs(before, rebuilt)).toEqual(['b.zst'])
    expect(changedWithoutInputs(before, newInputs)).toEqual([])
  })
})
