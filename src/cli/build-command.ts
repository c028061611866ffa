/**
 * `tazuna-action build` (spec §4.6): every manifest's raw Build output, in declaration order,
 * joined with `\n---\n` and followed by a newline, as `tazuna build` prints it. Validation
 * follows upstream: the unexpanded document and the expanded manifests must pass the schema;
 * manifest names only warn; `--tags` filters.
 *
 * Divergence (§13.19): `tazuna build` constructs a Kubernetes client and renders Helm charts
 * with the server's version and API versions. This command never contacts a cluster, so
 * helmfile manifests without `helmfile.kubeVersion` see Helm's library default (v1.20.0, see
 * DEFAULT_KUBE_VERSION) instead; the action's diff and apply do use discovery.
 */
import type { BuildContext } from '../build/context.js'
import { renderManifestText } from '../build/manifest.js'
import type { CliCommand, CommandContext } from '../cli.js'
import { nodeConfigFiles } from '../config/files.js'
import { expandIncludes } from '../config/includes.js'
import { loadConfig } from '../config/load.js'
import { validateManifestNames } from '../config/names.js'
import type { Manifest } from '../config/schema.js'
import { validateConfig } from '../config/validate.js'
import { validateManifest } from '../config/validate-manifest.js'
import { ConfigError } from '../errors.js'
import { selectedByTags } from '../plan/tags.js'
import { cliBuildContext, stderrLog } from './cluster-setup.js'

/** The warning upstream logs when names fail the rules and build or apply only warns (§2.5, §9.1). */
export const NAME_WARNING =
  "manifest name validation failed (run 'tazuna check' to see details, or 'tazuna check --fix' to auto-fix)"

/** `tazuna-action build`: render and print; needs no cluster. */
export const buildCommand: CliCommand = {
  name: 'build',
  summary: 'Render every manifest and print the YAML like tazuna build (no cluster)',
  async run(ctx) {
    const { manifests, context } = await prepareBuild(ctx)
    const log = stderrLog(ctx.io)
    const outputs: string[] = []
    for (const manifest of manifests) {
      if (!selectedByTags(manifest.tags, ctx.flags.tags)) {
        log.info(`skip manifest due to tags filter (manifest ${manifest.name})`)
        continue
      }
      const text = await renderManifestText(manifest, context)
      if (text !== '') outputs.push(text)
    }
    ctx.io.stdout(`${outputs.join('\n---\n')}\n`)
    return 0
  }
}

async function prepareBuild(
  ctx: CommandContext
): Promise<{ manifests: Manifest[]; context: BuildContext }> {
  const options = { environment: ctx.flags.environment, engine: ctx.templates }
  const loaded = await loadConfig({ ...options, file: ctx.flags.filePath, version: ctx.version })
  const preProblems = await validateConfig(loaded)
  if (preProblems.length > 0) throw new ConfigError(preProblems)
  const expanded = await expandIncludes(loaded, options)
  const postProblems = [...expanded.problems]
  for (const [i, manifest] of expanded.manifests.entries()) {
    postProblems.push(...(await validateManifest(loaded, manifest, i, nodeConfigFiles)))
  }
  if (postProblems.length > 0) throw new ConfigError(postProblems)
  if (validateManifestNames(expanded.manifests).length > 0) stderrLog(ctx.io).warn(NAME_WARNING)
  return { manifests: expanded.manifests, context: cliBuildContext(ctx, loaded) }
}
