/** Resolving paths the way the confinement policy compares them (src/config/confinement.ts). */
import { realpath } from 'node:fs/promises'
import path from 'node:path'
import type { PathPolicy } from '../../config/confinement.js'

/**
 * The path with every symlink resolved; for a path that does not exist (yet), its nearest
 * existing ancestor resolved and the rest appended, so `../x` outside is refused all the same.
 */
export async function resolveReal(file: string): Promise<string> {
  const absolute = path.resolve(file)
  let existing = absolute
  const rest: string[] = []
  for (;;) {
    try {
      return path.join(await realpath(existing), ...rest.reverse())
    } catch {
      const parent = path.dirname(existing)
      if (parent === existing) return absolute
      rest.push(path.basename(existing))
      existing = parent
    }
  }
}

/** The policy with its directories resolved, as the paths checked against it are. */
export async function resolvePolicy(policy: PathPolicy): Promise<PathPolicy> {
  const [root, allowed] = await Promise.all([
    resolveReal(policy.root),
    Promise.all(policy.allowed.map(resolveReal))
  ])
  return { ...policy, root, allowed }
}
