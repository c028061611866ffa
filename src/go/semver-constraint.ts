/**
 * Masterminds/semver v3.5.0 constraints (`NewConstraint`, `Constraints.Check`), which Helm uses
 * to pick a chart version from a repository index or from OCI tags
 * (docs/compatibility.md#chart-download). Parsing goes through the library's own regular
 * expressions, so what it accepts (`~1.2`, `^0.x`, `>= 1, < 2`, `1.2 - 1.4`, `a || b`) and
 * rejects is the same; Go's `\s` is ASCII whitespace only.
 */
import {
  compareVersions,
  comparePrerelease,
  parseVersion,
  SemverError,
  type SemVersion
} from './semver.js'

/** A parsed constraint: OR-groups of AND-ed comparisons. */
export interface SemverConstraint {
  groups: Comparison[][]
  /** Per group: a comparison names a prerelease, so prereleases may match it. */
  containsPre: boolean[]
}

interface Comparison {
  op: string
  orig: string
  con: SemVersion
  dirty: boolean
  minorDirty: boolean
  patchDirty: boolean
}

const MAX_CONSTRAINT_LEN = 512
const MAX_CONSTRAINT_GROUPS = 32
const S = '[\\t\\n\\f\\r ]'
const CV =
  'v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?' +
  '(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?' +
  '(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?'
const OPS = '=||!=|>|<|>=|=>|<=|=<|~|~>|\\^'
const CONSTRAINT = new RegExp(`^${S}*(${OPS})${S}*(${CV})${S}*$`)
const RANGE = new RegExp(`${S}*(${CV})${S}+-${S}+(${CV})${S}*`, 'g')
const FIND = new RegExp(`(${OPS})${S}*(${CV})`, 'g')
const VALID = new RegExp(
  `^(${S}*(${OPS})${S}*(${CV})${S}*)((?:${S}+|,${S}*)(${OPS})${S}*(${CV})${S}*)*$`
)

const isX = (s: string | undefined): boolean => s === 'x' || s === '*' || s === 'X'

/** Go's `%q` for the ASCII strings these messages quote. */
const quote = (s: string): string => JSON.stringify(s)

/** `semver.NewConstraint`; throws SemverError with the library's message. */
export function parseConstraint(text: string): SemverConstraint {
  if (new TextEncoder().encode(text).length > MAX_CONSTRAINT_LEN) {
    throw new SemverError(`constraint string is too long (max ${MAX_CONSTRAINT_LEN} bytes)`)
  }
  const ors = rewriteRange(text).split('||')
  if (ors.length > MAX_CONSTRAINT_GROUPS) {
    throw new SemverError(`too many constraint groups (max ${MAX_CONSTRAINT_GROUPS})`)
  }
  const groups: Comparison[][] = []
  const containsPre: boolean[] = []
  for (const or of ors) {
    if (!VALID.test(or)) throw new SemverError(`improper constraint: ${quote(or)}`)
    const found = [...or.matchAll(FIND)].map((m) => m[0])
    const comparisons = (found.length > 0 ? found : [or]).map(parseComparison)
    groups.push(comparisons)
    containsPre.push(comparisons.some((c) => c.con.pre !== ''))
  }
  return { groups, containsPre }
}

function rewriteRange(text: string): string {
  let out = text
  for (const m of text.matchAll(RANGE)) {
    out = out.replace(m[0], `>= ${m[1]}, <= ${m[11]} `)
  }
  return out
}

function parseComparison(text: string): Comparison {
  const m = CONSTRAINT.exec(text)
  if (m === null) throw new SemverError(`improper constraint: ${quote(text)}`)
  const [, op = '', orig = '', major = '', minor = '', patch = '', pre = ''] = m
  let ver = orig
  let dirty = false
  let minorDirty = false
  let patchDirty = false
  if (isX(major) || major === '') {
    ver = `0.0.0${pre}`
    dirty = true
  } else if (isX(minor.slice(1)) || minor === '') {
    ver = `${major}.0.0${pre}`
    dirty = minorDirty = true
  } else if (isX(patch.slice(1)) || patch === '') {
    ver = `${major}${minor}.0${pre}`
    dirty = patchDirty = true
  }
  let con: SemVersion
  try {
    con = parseVersion(ver)
  } catch {
    throw new SemverError('constraint parser error')
  }
  return { op, orig, con, dirty, minorDirty, patchDirty }
}

/** `Constraints.Check`: some OR-group whose comparisons all hold. */
export function satisfies(constraint: SemverConstraint, v: SemVersion): boolean {
  return constraint.groups.some((group, i) => {
    const includePre = constraint.containsPre[i] ?? false
    return group.every((c) => check(c, v, includePre))
  })
}

function check(c: Comparison, v: SemVersion, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false
  switch (c.op) {
    case '':
    case '=':
      return c.dirty ? tilde(c, v) : compareVersions(v, c.con) === 0
    case '!=':
      return notEqual(c, v)
    case '>':
      return greaterThan(c, v)
    case '<':
      return compareVersions(v, c.con) < 0
    case '>=':
    case '=>':
      return compareVersions(v, c.con) >= 0
    case '<=':
    case '=<':
      return lessThanEqual(c, v)
    case '~':
    case '~>':
      return tilde(c, v)
    default:
      return caret(c, v)
  }
}

function notEqual(c: Comparison, v: SemVersion): boolean {
  if (c.dirty) {
    if (c.con.major !== v.major) return true
    if (c.con.minor !== v.minor && !c.minorDirty) return true
    if (c.minorDirty) return false
    if (c.con.patch !== v.patch && !c.patchDirty) return true
    if (c.patchDirty) {
      if (v.pre !== '' || c.con.pre !== '') return comparePrerelease(v.pre, c.con.pre) !== 0
      return false
    }
  }
  return compareVersions(v, c.con) !== 0
}

function greaterThan(c: Comparison, v: SemVersion): boolean {
  if (!c.dirty) return compareVersions(v, c.con) === 1
  if (v.major > c.con.major) return true
  if (v.major < c.con.major || c.minorDirty) return false
  if (c.patchDirty) return v.minor > c.con.minor
  return compareVersions(v, c.con) === 1
}

function lessThanEqual(c: Comparison, v: SemVersion): boolean {
  if (!c.dirty) return compareVersions(v, c.con) <= 0
  if (v.major > c.con.major) return false
  return !(v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty)
}

function tilde(c: Comparison, v: SemVersion): boolean {
  if (compareVersions(v, c.con) < 0) return false
  const { con } = c
  if (con.major === 0n && con.minor === 0n && con.patch === 0n && !c.minorDirty && !c.patchDirty) {
    return true
  }
  if (v.major !== con.major) return false
  return v.minor === con.minor || c.minorDirty
}

function caret(c: Comparison, v: SemVersion): boolean {
  const { con } = c
  if (compareVersions(v, con) < 0) return false
  if (con.major > 0n || c.minorDirty) return v.major === con.major
  if (con.major === 0n && v.major > 0n) return false
  if (con.minor > 0n || c.patchDirty) return v.minor === con.minor
  if (con.minor === 0n && v.minor > 0n) return false
  return con.patch === v.patch
}
