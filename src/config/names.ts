/**
 * Manifest name rules (docs/compatibility.md#manifest-names, current upstream rule): a name becomes
 * the State ConfigMap `tazuna-state-<name>`, so it must be a DNS-1123-label-like string of at most
 * 240 bytes.
 */
import type { ConfigProblem } from '../errors.js'
import { goQuote } from '../go/quote.js'
import type { Manifest } from './schema.js'

/** 253 (ConfigMap name limit) minus the 13 bytes of `tazuna-state-`. */
export const MAX_MANIFEST_NAME_LENGTH = 240
const namePattern = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/

// Tazuna quotes the whole name; a name of megabytes would make a message of megabytes
// (docs/reliability.md#hostile-input), so names over 512 bytes are shown by their start.
const QUOTED_NAME_BYTES = 512

function quotedName(name: string, bytes: number): string {
  return bytes <= QUOTED_NAME_BYTES ? goQuote(name) : `${goQuote(name.slice(0, 64))}...`
}

/**
 * The problem with one name, if any, checked in upstream's order: empty, reserved, length,
 * characters. `index` is the position in the include-expanded list.
 */
export function manifestNameProblem(name: string, index: number): string | undefined {
  if (name === '') return `manifest[${index}]: name is required`
  if (name === '_metadata') return `manifest[${index}]: name ${goQuote(name)} is reserved`
  const length = Buffer.byteLength(name, 'utf8')
  if (length > MAX_MANIFEST_NAME_LENGTH) {
    return `manifest[${index}]: name ${quotedName(name, length)} is too long (${length} chars, max ${MAX_MANIFEST_NAME_LENGTH})`
  }
  if (!namePattern.test(name)) {
    return `manifest[${index}]: name ${goQuote(name)} contains invalid characters (allowed: lowercase a-z0-9 and '-', must start and end with an alphanumeric)`
  }
  return undefined
}

/**
 * Every name problem of the expanded list. Names that fail a rule are not counted for
 * uniqueness; a duplicated name is reported once, at its second occurrence (upstream reports
 * duplicates in Go map order; here they follow the file order).
 */
export function validateManifestNames(manifests: readonly Manifest[]): ConfigProblem[] {
  const problems: ConfigProblem[] = []
  const seen = new Map<string, Manifest[]>()
  manifests.forEach((manifest, i) => {
    const problem = manifestNameProblem(manifest.name, i)
    if (problem !== undefined) problems.push({ ...manifest.source, message: problem })
    else seen.set(manifest.name, [...(seen.get(manifest.name) ?? []), manifest])
  })
  for (const [name, owners] of seen) {
    if (owners.length < 2) continue
    problems.push({
      ...owners[1]!.source,
      message: `manifest name ${goQuote(name)} is duplicated (${owners.length} times)`
    })
  }
  return problems
}
