/**
 * Include expansion (docs/compatibility.md#includes): a manifest with `includes` is replaced, in
 * place and in include order, by the `spec.manifests` of each included file. Included files are
 * rendered with the same template engine and environment; nesting is forbidden; every path — of the
 * include file and of the manifests inside it — is relative to the directory of the
 * *top-level* tazuna.yaml. Included manifests keep their own file and line (`source`).
 */
import path from 'node:path'
import { ConfigError, type ConfigProblem } from '../errors.js'
import { PathOutsideRepositoryError } from './confinement.js'
import type { TemplateEngine } from '../go/template/engine.js'
import type { ConfigFiles } from './files.js'
import { loadTazunaDocument, type LoadedConfig } from './load.js'
import type { Include, Manifest } from './schema.js'

/** What expansion needs besides the loaded top-level file. */
export interface ExpandIncludesOptions {
  environment: string
  engine: TemplateEngine
  files: ConfigFiles
}

/** The expanded manifest list and every problem met; failed includes contribute nothing. */
export interface ExpandedManifests {
  manifests: Manifest[]
  problems: ConfigProblem[]
}

/** Expands includes; never throws for user errors (they are returned as problems). */
export async function expandIncludes(
  loaded: LoadedConfig,
  options: ExpandIncludesOptions
): Promise<ExpandedManifests> {
  const manifests: Manifest[] = []
  const problems: ConfigProblem[] = []
  const { spec } = loaded.config
  for (const [i, manifest] of spec.manifests.entries()) {
    if (manifest.includes.length === 0) {
      manifests.push(manifest)
      continue
    }
    for (const [j, include] of manifest.includes.entries()) {
      const result = await loadInclude(loaded, options, include, { manifest: i, include: j })
      manifests.push(...result.manifests)
      problems.push(...result.problems)
    }
  }
  return { manifests, problems }
}

async function loadInclude(
  loaded: LoadedConfig,
  options: ExpandIncludesOptions,
  include: Include,
  index: { manifest: number; include: number }
): Promise<ExpandedManifests> {
  const { files } = options
  const at = loaded.sources.locate(include, 'path')
  const fail = (message: string): ExpandedManifests => ({
    manifests: [],
    problems: [{ ...at, message: `validation failed for manifest[${index.manifest}]: ${message}` }]
  })
  if (include.path === '') return fail(`include[${index.include}].path is required`)
  // Go's filepath.Join: an absolute include path is still joined under the directory.
  const file = path.join(path.dirname(loaded.file), include.path)
  try {
    if (!(await files.exists(file))) return fail(`include file not found: ${file}`)
  } catch (error) {
    if (error instanceof PathOutsideRepositoryError) return fail(`include: ${error.message}`)
    throw error
  }
  try {
    const doc = await loadTazunaDocument(
      file,
      { environment: options.environment, engine: options.engine, files, sources: loaded.sources },
      (reason) => `failed to open include file: ${file}: ${reason}`
    )
    return rejectNested(doc.spec.manifests, file)
  } catch (error) {
    if (error instanceof ConfigError) return { manifests: [], problems: [...error.problems] }
    throw error
  }
}

function rejectNested(manifests: Manifest[], file: string): ExpandedManifests {
  const nested = manifests.filter((m) => m.includes.length > 0)
  return {
    manifests: manifests.filter((m) => m.includes.length === 0),
    problems: nested.map((m) => ({
      ...m.source,
      message: `nested includes are not allowed in include file: ${file}`
    }))
  }
}
