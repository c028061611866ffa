// The interop corpus: fixtures under __tests__/fixtures/interop-*/ (tazuna.yaml, manifests,
// interop.json with the environment, tags and pending edits) and the State and `state diff`
// texts the Go oracle (__tests__/oracle/interop) recorded in expected-state.json.
//
// Every test works on its own copy of a fixture, committed to a fresh git repository (so both
// tools record a real `gitCommitHash`), with the manifest names made unique for the run: every
// manifest name of the corpus starts with `ix-`, which becomes `ix<8 hex>-`. Namespaces stay as
// the fixture writes them (they are part of the hashes); each fixture uses its own
// `interop-<case>` namespaces, and re-applying the same objects is idempotent.
import { randomBytes } from 'node:crypto'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { commitAll } from '../../support/git-repo.js'

/** __tests__/fixtures. */
export const fixturesDir = path.resolve(import.meta.dirname, '..', '..', 'fixtures')

/** The corpus: every interop-* fixture, sorted. */
export const interopFixtures: readonly string[] = readdirSync(fixturesDir)
  .filter((name) => name.startsWith('interop-'))
  .sort()

/** The fixtures where the action must match Tazuna. */
export const matchingFixtures = (): string[] =>
  interopFixtures.filter((name) => loadInteropFixture(name).spec.knownDivergence === undefined)

/**
 * The fixtures where the action is known to differ: kept in the corpus, with a test that the
 * action still fails as documented, so that fixing it shows up as a test to update.
 */
export const divergentFixtures = (): string[] =>
  interopFixtures.filter((name) => loadInteropFixture(name).spec.knownDivergence !== undefined)

/** One change of a pending edit (see the oracle's main.go). */
export interface PendingEdit {
  file: string
  replace?: string
  with?: string
  content?: string
}

/** DIR/interop.json. */
export interface InteropSpec {
  /** Set when the action is known to differ from Tazuna here (see the fixture's README). */
  knownDivergence?: { reason: string; actionError: string }
  environment?: string
  tags?: string[]
  pending: PendingEdit[]
}

/** State ConfigMap data by manifest (without `_metadata`). */
export type StateData = Record<string, Record<string, string>>

/** The cluster's State after a sync and the `state diff` text then. */
export interface ExpectedStep {
  state: StateData
  diff: string
}

/** DIR/expected-state.json, written by the Go oracle. */
export interface InteropExpectation {
  environment: string
  tags: string[] | null
  manifests: string[]
  taggedSync?: ExpectedStep
  sync: ExpectedStep
  pendingDiff: string
}

/** A fixture with its spec and the oracle's expectations. */
export interface InteropFixture {
  name: string
  dir: string
  spec: InteropSpec
  expected: InteropExpectation
}

/** Reads fixture `name`. */
export function loadInteropFixture(name: string): InteropFixture {
  const dir = path.join(fixturesDir, name)
  const read = (file: string): unknown => JSON.parse(readFileSync(path.join(dir, file), 'utf8'))
  return {
    name,
    dir,
    spec: read('interop.json') as InteropSpec,
    expected: read('expected-state.json') as InteropExpectation
  }
}

/** A fixture copied for one test, with unique manifest names, committed to git. */
export interface Workspace {
  fixture: InteropFixture
  dir: string
  /** The copy's tazuna.yaml. */
  file: string
  /** `git rev-parse HEAD` of the copy: what both tools record as gitCommitHash. */
  sha: string
  /** Maps the corpus's manifest names (`ix-...`) to this copy's. */
  rename(text: string): string
  /** This copy's manifest names, in declaration order. */
  manifests: string[]
  /** The oracle's State with this copy's manifest names. */
  expectedState(step: ExpectedStep): StateData
  /** An oracle `state diff` text with this copy's manifest names. */
  expectedDiff(text: string): string
}

const NAME_TOKEN = /(?<![A-Za-z0-9_.-])ix-/g

/**
 * Copies the fixture to a temporary directory, renames its manifests (in the top-level YAML
 * files: tazuna.yaml and include files), and commits it.
 */
export function prepareWorkspace(fixture: InteropFixture): Workspace {
  const run = `ix${randomBytes(4).toString('hex')}-`
  const rename = (text: string): string => text.replace(NAME_TOKEN, run)
  const dir = mkdtempSync(path.join(os.tmpdir(), `${fixture.name}-`))
  cpSync(fixture.dir, dir, {
    recursive: true,
    filter: (src) => !/(?:^|\/)(?:expected-state|interop)\.json$/.test(src)
  })
  for (const entry of readdirSync(dir)) {
    if (!/\.ya?ml$/.test(entry)) continue
    const file = path.join(dir, entry)
    writeFileSync(file, rename(readFileSync(file, 'utf8')))
  }
  const sha = commitAll(dir, 'fixture')
  const renameKey = (key: string): string => (key.startsWith('ix-') ? rename(key) : key)
  return {
    fixture,
    dir,
    file: path.join(dir, 'tazuna.yaml'),
    sha,
    rename,
    manifests: fixture.expected.manifests.map(renameKey),
    expectedState: (step) =>
      Object.fromEntries(
        Object.entries(step.state).map(([manifest, data]) => [
          renameKey(manifest),
          Object.fromEntries(Object.entries(data).map(([k, v]) => [renameKey(k), v]))
        ])
      ),
    expectedDiff: (text) => text.replace(/^Manifest: ix-/gm, `Manifest: ${run}`)
  }
}

/** Removes the workspace's copy (the cluster keeps its objects and State). */
export function removeWorkspace(ws: Workspace | undefined): void {
  if (ws !== undefined) rmSync(ws.dir, { recursive: true, force: true })
}

/**
 * Applies the fixture's pending edits to the copy (top-level YAML files get the copy's
 * manifest names). Not committed: `gitCommitHash` only matters to syncs.
 */
export function applyPendingEdits(ws: Workspace): void {
  for (const edit of ws.fixture.spec.pending) {
    const file = path.join(ws.dir, edit.file)
    const named = (text: string): string => (edit.file.includes('/') ? text : ws.rename(text))
    if (edit.content !== undefined) {
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(file, named(edit.content))
      continue
    }
    const before = readFileSync(file, 'utf8')
    const find = named(edit.replace ?? '')
    if (before.split(find).length !== 2) {
      throw new Error(`pending edit of ${edit.file}: ${JSON.stringify(find)} is not found once`)
    }
    writeFileSync(file, before.replace(find, named(edit.with ?? '')))
  }
}
