/**
 * Loading tazuna.yaml (docs/compatibility.md#config-loading): read, render as a Go template (tazuna
 * mode, `.Environment`), parse with sigs.k8s.io/yaml semantics, decode with Go's encoding/json
 * rules, then the minimum-version gate. Include files go through the same steps (includes.ts).
 *
 * Lines in YAML problems are lines of the *rendered* text, as in Tazuna: they match the file
 * unless a template action adds or removes lines above them.
 */
import path from 'node:path'
import { ConfigError, type ConfigProblem } from '../errors.js'
import { tazunaTemplateData, TemplateError, type TemplateEngine } from '../go/template/engine.js'
import { parseYamlDocument, type YamlDocument } from '../go/yaml.js'
import { fileErrorText, type ConfigFiles } from './files.js'
import { decodeGo } from '../go/json.js'
import { minimumVersionProblem } from './min-version.js'
import type { TazunaConfig } from './schema.js'
import { tazunaGoType } from '../go/schema-types.js'
import { SourceIndex } from './source-index.js'

/** What loading needs. */
export interface LoadConfigOptions {
  /** tazuna.yaml as the user named it (`-f`); problems name files relative to the same base. */
  file: string
  /** The `-e` value, or "". */
  environment: string
  engine: TemplateEngine
  /** The running version for the minimum-version gate; non-semver or absent skips the gate. */
  version?: string
  files: ConfigFiles
}

/** A loaded tazuna.yaml. */
export interface LoadedConfig {
  config: TazunaConfig
  /** As given in LoadConfigOptions.file. */
  file: string
  /** Absolute directory of tazuna.yaml: manifest, include and envfile paths are relative to it. */
  dir: string
  /** File and line of every decoded object (see SourceIndex). */
  sources: SourceIndex
}

/** Loads tazuna.yaml; throws ConfigError with every problem found (each with file and line). */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { files } = options
  const sources = new SourceIndex()
  const config = await loadTazunaDocument(options.file, {
    environment: options.environment,
    engine: options.engine,
    files,
    sources
  })
  const gate = minimumVersionProblem(
    config.spec.minimumSupportedTazunaVersion,
    options.version ?? 'dev'
  )
  if (gate !== undefined) {
    const at = sources.locate(config.spec, 'minimumSupportedTazunaVersion')
    throw new ConfigError([{ ...at, message: gate }])
  }
  return { config, file: options.file, dir: path.resolve(path.dirname(options.file)), sources }
}

/** Shared by tazuna.yaml and include files. */
export interface DocumentLoader {
  environment: string
  engine: TemplateEngine
  files: ConfigFiles
  sources: SourceIndex
}

/**
 * Reads, renders, parses and decodes one Tazuna document, setting each manifest's `source`.
 * Throws ConfigError; `readFailure` words a file that cannot be read.
 */
export async function loadTazunaDocument(
  file: string,
  loader: DocumentLoader,
  readFailure: (reason: string) => string = (reason) => `failed to read ${file}: ${reason}`
): Promise<TazunaConfig> {
  let text: string
  try {
    text = await loader.files.readText(file)
  } catch (error) {
    throw new ConfigError([{ file, message: readFailure(fileErrorText(error)) }])
  }
  const rendered = await renderTazunaTemplate(text, file, loader)
  const doc = parseYamlDocument(rendered, file)
  return decodeTazuna(doc, file, loader.sources)
}

async function renderTazunaTemplate(
  text: string,
  file: string,
  loader: DocumentLoader
): Promise<string> {
  try {
    return await loader.engine.render({
      text,
      name: file,
      mode: 'tazuna',
      data: tazunaTemplateData(loader.environment)
    })
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error
    const step = error.phase === 'parse' ? 'parse' : 'render'
    const problem: ConfigProblem = {
      file,
      line: error.line,
      message: `failed to ${step} ${file} as a Go template: ${error.message}`
    }
    throw new ConfigError([problem])
  }
}

function decodeTazuna(doc: YamlDocument, file: string, sources: SourceIndex): TazunaConfig {
  const { value, problems } = decodeGo(doc.value, tazunaGoType, {
    file,
    lineOf: (p) => (p.length === 0 ? doc.line : doc.lineOf(p)),
    sources
  })
  // Go would stop at the first mismatch (in sorted-key order); all of them, by line, read better.
  if (problems.length > 0)
    throw new ConfigError(problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)))
  const config = value as TazunaConfig
  config.spec.manifests.forEach((manifest, i) => {
    manifest.source = sources.locate(config.spec.manifests, i, { file, line: doc.line })
  })
  return config
}
