/**
 * `spec.minimumSupportedTazunaVersion` (docs/compatibility.md#config-loading step 4). Versions are
 * parsed like Masterminds/semver's NewVersion (a leading `v`, and missing minor/patch, are
 * accepted) and compared by semver precedence.
 */
import { goQuote } from '../go/quote.js'

interface SemVer {
  major: number
  minor: number
  patch: number
  prerelease: string[]
}

const versionPattern =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/

/** Parses a semantic version, or undefined when it is not one. */
export function parseSemVer(text: string): SemVer | undefined {
  const m = versionPattern.exec(text)
  if (!m) return undefined
  return {
    major: Number(m[1]),
    minor: m[2] ? Number(m[2].slice(1)) : 0,
    patch: m[3] ? Number(m[3].slice(1)) : 0,
    prerelease: m[5] ? m[5].split('.') : []
  }
}

/** Semver precedence: negative when a < b, 0 when equal, positive when a > b. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch
  if (core !== 0) return core
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return b.prerelease.length - a.prerelease.length
  }
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i]
    const y = b.prerelease[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    if (x === y) continue
    const xNum = /^[0-9]+$/.test(x)
    const yNum = /^[0-9]+$/.test(y)
    if (xNum && yNum) return Number(x) - Number(y)
    if (xNum !== yNum) return xNum ? -1 : 1
    return x < y ? -1 : 1
  }
  return 0
}

/**
 * The gate's problem, if any: an invalid minimum, or a running version below it. A running
 * version that is not semver (`dev`) skips the gate.
 */
export function minimumVersionProblem(minimum: string, running: string): string | undefined {
  const wanted = minimum.trim()
  if (wanted === '') return undefined
  const min = parseSemVer(wanted)
  if (min === undefined) {
    return `spec.minimumSupportedTazunaVersion ${goQuote(wanted)} is not a valid semver: Invalid Semantic Version`
  }
  const current = parseSemVer(running)
  if (current === undefined || compareSemVer(current, min) >= 0) return undefined
  return `this tazuna.yaml requires tazuna >= ${wanted}, but the running tazuna is ${running}; please upgrade tazuna`
}
