/**
 * `tags` (docs/compatibility.md#tags-command): every tag of tazuna.yaml's manifests (includes
 * expanded) with the names of the manifests that carry it, as Tazuna's `tazuna tags` prints
 * them: `<tag>:` then `- <name>` per manifest, in declaration order; unnamed manifests are left
 * out. Tags in byte order, where Tazuna's order is Go's map order and varies from run to run
 * (docs/compatibility.md#tags-command).
 */
import type { Manifest } from '../config/schema.js'
import type { CliCommand } from './command.js'

/** Tag → names of the manifests carrying it, in declaration order (a repeated tag repeats the name). */
export function tagsOf(
  manifests: readonly Pick<Manifest, 'name' | 'tags'>[]
): Map<string, string[]> {
  const tags = new Map<string, string[]>()
  for (const m of manifests) {
    if (m.name === '') continue
    for (const tag of m.tags) {
      const names = tags.get(tag) ?? []
      names.push(m.name)
      tags.set(tag, names)
    }
  }
  return tags
}

/** Tazuna's text (`%s:\n` then `- %s\n` per name), tags in byte order; empty without tags. */
export function renderTagsText(tags: ReadonlyMap<string, readonly string[]>): string {
  const ordered = [...tags.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return ordered
    .map((tag) => `${tag}:\n${(tags.get(tag) ?? []).map((name) => `- ${name}\n`).join('')}`)
    .join('')
}

/** `tazuna-action tags`. */
export const tagsCommand: CliCommand = {
  name: 'tags',
  summary: 'List the tags defined in tazuna.yaml with the manifests carrying each (no cluster)',
  async run({ io, engine }) {
    const run = await engine.loadForPlan()
    io.stdout(renderTagsText(tagsOf(run.manifests)))
    return 0
  }
}
