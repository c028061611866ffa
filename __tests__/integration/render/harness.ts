// Shared set-up of the build integration tests: the real tools (from the integration project's
// global setup, else from scripts/build-tools.sh's env.sh), the Go template engine, and the
// fixture cases under __tests__/fixtures/build-*/ with the oracle's recorded expectations.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createExecRunner } from '../../../src/adapters/command-runner.js'
import { createNodeFiles } from '../../../src/adapters/files/node-files.js'
import { createHttpClient } from '../../../src/adapters/http-client.js'
import type { CommandRunner } from '../../../src/render/ports.js'
import type {
  BuildContext,
  BuildManifestSpec,
  HelmCapabilities,
  ProviderSpec
} from '../../../src/render/context.js'
import { createGoTemplateEngine } from '../../../src/adapters/render/template-engine.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { resolveToolPaths } from '../../cluster/tool-paths.js'
import { testRenderModule } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'

export const fixturesDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures'
)

/** helm and kustomize as built by scripts/build-tools.sh (HELM_BIN/KUSTOMIZE_BIN win). */
export function testTools(): { helm?: string; kustomize?: string } {
  const helm = process.env.HELM_BIN
  const kustomize = process.env.KUSTOMIZE_BIN
  if (helm && kustomize) return { helm, kustomize }
  const paths = resolveToolPaths()
  return { helm: paths.helm, kustomize: paths.kustomize }
}

const engine = createGoTemplateEngine(() => goTemplateEngineFiles())

/** DIR/case.json as the oracle reads it. */
export interface FixtureCase {
  manifest: BuildManifestSpec
  environment?: string
  env?: Record<string, string>
  providers?: ProviderSpec[]
  capabilities?: HelmCapabilities
}

/** DIR/expected.json as the oracle writes it. */
export interface FixtureExpectation {
  alwaysSync: boolean
  objects: { key: string; hash: string; object: JsonObject }[]
}

/** A fixture: its case, the oracle's expectations and a BuildContext over real tools. */
export interface Fixture {
  dir: string
  case: FixtureCase
  expected: FixtureExpectation
  /**
   * expected-build.yaml: what `tazuna build` prints for the manifest (output + newline);
   * undefined for a render-parity case whose render fails (its expected.json holds the error).
   */
  expectedBuildText: string | undefined
  /** Every secret value handed to registerSecret. */
  registered: string[]
  ctx: BuildContext
}

/** Loads fixture `name`; `overrides` replace parts of the context. */
export function loadFixture(name: string, overrides: Partial<BuildContext> = {}): Fixture {
  const dir = path.join(fixturesDir, name)
  const read = (file: string): string => readFileSync(path.join(dir, file), 'utf8')
  const c = JSON.parse(read('case.json')) as FixtureCase
  const registered: string[] = []
  const runner: CommandRunner = createExecRunner()
  return {
    dir,
    case: c,
    expected: JSON.parse(read('expected.json')) as FixtureExpectation,
    expectedBuildText: existsSync(path.join(dir, 'expected-build.yaml'))
      ? read('expected-build.yaml')
      : undefined,
    registered,
    ctx: {
      runner,
      renderer: testRenderModule(),
      http: createHttpClient(),
      templates: engine,
      configDir: dir,
      environment: c.environment ?? '',
      capabilities: c.capabilities,
      providers: c.providers ?? [],
      registerSecret: (value) => registered.push(value),
      lookupEnv: (name) => c.env?.[name],
      files: createNodeFiles(),
      ...overrides
    }
  }
}
