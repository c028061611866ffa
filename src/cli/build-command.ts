/**
 * `tazuna-action build`: every manifest's raw render, in declaration order, as `tazuna build`
 * prints it (docs/compatibility.md#build-output). Validation follows upstream: the unexpanded
 * document and the expanded manifests must pass the schema; manifest names only warn; `--tags`
 * filters.
 *
 * Divergence (docs/compatibility.md#build-without-a-cluster): `tazuna build` renders Helm
 * charts with the server's version and API versions; this command never contacts a cluster, so
 * helmfile manifests without `helmfile.kubeVersion` see Helm's library default (v1.20.0).
 */
import { orasPullOptions, type CliCommand } from './command.js'

/** `tazuna-action build`: render and print; needs no cluster. */
export const buildCommand: CliCommand = {
  name: 'build',
  summary: 'Render every manifest and print the YAML like tazuna build (no cluster)',
  options: orasPullOptions,
  async run({ io, engine }) {
    const run = await engine.loadForBuild()
    io.stdout(await engine.renderBuild(run))
    return 0
  }
}
