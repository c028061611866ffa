/**
 * Masterminds/semver v3.5.0 (the version Helm v3.21.4 links) as Helm uses it to pick a chart
 * version: `NewVersion` (loose parsing, CoerceNewVersion on), `StrictNewVersion` (OCI tags),
 * `Compare`, and `NewConstraint` + `Check` (docs/compatibility.md#chart-download). The regular
 * expressions are the library's own; Go's `\s` is ASCII-only, so it is spelled out. Expected
 * values come from the Go oracle under __tests__/oracle/semver.
 */
import { splitN } from './strings.js'

/** A parsed semantic version; numbers are uint64 in Go, so bigint here. */
export interface SemVersion {
  major: bigint
  minor: bigint
  patch: bigint
  pre: string
  metadata: string
  original: string
}

/** A version string Masterminds/semver rejects; `message` is the library's error text. */
export class SemverError extends Error {
  override name = 'SemverError'
}

const MAX_VERSION_LEN = 256
const UINT64_MAX = (1n << 64n) - 1n
const NUM = /^[0-9]*$/
const ALLOWED = /^[0-9A-Za-z-]*$/

const LOOSE =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/

function parseUint(text: string): bigint {
  const n = BigInt(text)
  if (n > UINT64_MAX) {
    throw new SemverError(
      `error parsing version segment: strconv.ParseUint: parsing "${text}": value out of range`
    )
  }
  return n
}

function validatePrerelease(pre: string): void {
  for (const part of pre.split('.')) {
    if (part === '') throw new SemverError('invalid prerelease string')
    if (NUM.test(part)) {
      if (part.length > 1 && part.startsWith('0')) {
        throw new SemverError('version segment starts with 0')
      }
    } else if (!ALLOWED.test(part)) throw new SemverError('invalid prerelease string')
  }
}

function validateMetadata(metadata: string): void {
  for (const part of metadata.split('.')) {
    if (part === '' || !ALLOWED.test(part)) throw new SemverError('invalid metadata string')
  }
}

/** `semver.NewVersion`: loose (`v` prefix, missing minor/patch, leading zeros); throws SemverError. */
export function parseVersion(text: string): SemVersion {
  if (text.length > MAX_VERSION_LEN) {
    throw new SemverError(`version string is too long (max ${MAX_VERSION_LEN} bytes)`)
  }
  const m = LOOSE.exec(text)
  if (m === null) throw new SemverError('invalid semantic version')
  const version: SemVersion = {
    major: parseUint(m[1] ?? '0'),
    minor: m[2] ? parseUint(m[2].slice(1)) : 0n,
    patch: m[3] ? parseUint(m[3].slice(1)) : 0n,
    pre: m[5] ?? '',
    metadata: m[8] ?? '',
    original: text
  }
  if (version.pre !== '') validatePrerelease(version.pre)
  if (version.metadata !== '') validateMetadata(version.metadata)
  return version
}

/** `semver.StrictNewVersion`: exactly MAJOR.MINOR.PATCH[-pre][+meta]; throws SemverError. */
export function parseStrictVersion(text: string): SemVersion {
  if (text.length === 0) throw new SemverError('version string empty')
  if (text.length > MAX_VERSION_LEN) {
    throw new SemverError(`version string is too long (max ${MAX_VERSION_LEN} bytes)`)
  }
  const parts = splitN(text, '.', 3)
  if (parts.length !== 3) throw new SemverError('invalid semantic version')
  let last = parts[2] ?? ''
  let metadata = ''
  let pre = ''
  if (last.includes('+')) {
    ;[last, metadata] = splitN(last, '+', 2) as [string, string]
    validateMetadata(metadata)
  }
  if (last.includes('-')) {
    ;[last, pre] = splitN(last, '-', 2) as [string, string]
    validatePrerelease(pre)
  }
  const numbers = [parts[0] ?? '', parts[1] ?? '', last]
  for (const p of numbers) {
    if (!NUM.test(p)) throw new SemverError('invalid characters in version')
    if (p.length > 1 && p.startsWith('0')) throw new SemverError('version segment starts with 0')
  }
  for (const p of numbers) {
    if (p === '') throw new SemverError('strconv.ParseUint: parsing "": invalid syntax')
  }
  const [major, minor, patch] = numbers.map(parseUint) as [bigint, bigint, bigint]
  return { major, minor, patch, pre, metadata, original: text }
}

/** `Version.String()`: canonical `MAJOR.MINOR.PATCH[-pre][+meta]` (no `v`). */
export function formatVersion(v: SemVersion): string {
  let s = `${v.major}.${v.minor}.${v.patch}`
  if (v.pre !== '') s += `-${v.pre}`
  if (v.metadata !== '') s += `+${v.metadata}`
  return s
}

function compareNumbers(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function isUint(text: string): boolean {
  return /^[0-9]+$/.test(text) && BigInt(text) <= UINT64_MAX
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0
  if (s === '') return -1
  if (o === '') return 1
  const sNum = isUint(s)
  const oNum = isUint(o)
  if (!sNum && !oNum) return s > o ? 1 : -1
  if (!oNum) return -1
  if (!sNum) return 1
  return BigInt(s) > BigInt(o) ? 1 : -1
}

/** `comparePrerelease`: dot-separated identifiers, numeric ones numerically and first. */
export function comparePrerelease(a: string, b: string): number {
  const as = a.split('.')
  const bs = b.split('.')
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const d = comparePrePart(as[i] ?? '', bs[i] ?? '')
    if (d !== 0) return d
  }
  return 0
}

/** `Version.Compare`: -1, 0 or 1; build metadata is ignored, a prerelease sorts first. */
export function compareVersions(a: SemVersion, b: SemVersion): number {
  const d =
    compareNumbers(a.major, b.major) ||
    compareNumbers(a.minor, b.minor) ||
    compareNumbers(a.patch, b.patch)
  if (d !== 0) return d
  if (a.pre === '' && b.pre === '') return 0
  if (a.pre === '') return 1
  if (b.pre === '') return -1
  return comparePrerelease(a.pre, b.pre)
}
