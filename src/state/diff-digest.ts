/**
 * Digests of a Diff (README.md#gated-deploys): one sha256 over every manifest's entries and one
 * per manifest, so the merge run can tell whether the Diff it is about to apply is the one a
 * reviewer saw on the pull request, and name the manifests that differ.
 *
 * What goes in: per entry its class (added, modified, removed, always-sync), state key, recorded
 * hash and new hash, as canonical JSON (src/state/hash.ts). Those hashes are ContentHashes — for a
 * Secret a sha256 over its values — that the same run's job summary and report.json show in full
 * and the comment shows abbreviated; a sha256 over them reveals nothing they do not.
 */
import { createHash } from 'node:crypto'
import { compareBytes } from './byte-order.js'
import { sortEntries, type DiffEntry } from './diff.js'
import { canonicalJson } from './hash.js'

/** One manifest's Diff, as far as the digests are concerned. */
export interface DigestInput {
  manifest: string
  entries: readonly DiffEntry[]
}

/** The whole Diff's digest, and one per manifest that has entries. */
export interface DiffDigests {
  digest: string
  /** Manifest name -> digest of its entries; manifests without entries are left out. */
  manifests: Record<string, string>
}

/** Hex characters of a digest shown to people (the comment's footer, the logs). */
export const shortDigestLength = 12

/**
 * The digests of a Diff: independent of the order manifests and entries come in; a manifest
 * without entries changes nothing (the whole digest of "no entries anywhere" is the same however
 * many manifests there are).
 */
export function diffDigests(manifests: readonly DigestInput[]): DiffDigests {
  const withEntries = manifests
    .filter((m) => m.entries.length > 0)
    .sort((a, b) => compareBytes(a.manifest, b.manifest))
  const rows = withEntries.flatMap((m) =>
    sortEntries(m.entries).map((e) => [m.manifest, ...entryRow(e)])
  )
  return {
    digest: sha256(canonicalJson(rows)),
    manifests: Object.fromEntries(
      withEntries.map((m) => [
        m.manifest,
        sha256(canonicalJson(sortEntries(m.entries).map(entryRow)))
      ])
    )
  }
}

/** The first characters of a digest, as people quote it. */
export function shortDigest(digest: string): string {
  return digest.slice(0, shortDigestLength)
}

const entryRow = (e: DiffEntry): string[] => [e.type, e.key, e.oldHash ?? '', e.newHash ?? '']

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')
