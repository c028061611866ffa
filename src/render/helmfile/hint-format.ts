/**
 * The `format` checks of tazuna.hint.yaml (docs/compatibility.md#hint-files): hostname, url, email,
 * ip, cidr, uuid, semver, datetime. The spec names the formats but not their exact grammar; these
 * follow the usual definitions (RFC 1123 host names, an absolute URL with scheme and host, RFC 3339
 * date-times, semver 2.0.0 with an optional leading `v` as Tazuna accepts elsewhere).
 */
import { isIP } from 'node:net'

/** The format names a hint may use. */
export const HINT_FORMATS = [
  'hostname',
  'url',
  'email',
  'ip',
  'cidr',
  'uuid',
  'semver',
  'datetime'
] as const

/** One of HINT_FORMATS. */
export type HintFormat = (typeof HINT_FORMATS)[number]

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`)
const EMAIL = /^[^\s@]+@[^\s@]+$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/

/** Whether `format` is one the hint schema knows. */
export function isHintFormat(format: string): format is HintFormat {
  return (HINT_FORMATS as readonly string[]).includes(format)
}

/**
 * Whether `value` satisfies `format`; callers skip empty strings
 * (docs/compatibility.md#hint-files).
 */
export function matchesHintFormat(format: HintFormat, value: string): boolean {
  switch (format) {
    case 'hostname':
      return value.length <= 253 && HOSTNAME.test(value)
    case 'url':
      return isUrl(value)
    case 'email':
      return EMAIL.test(value) && HOSTNAME.test(value.slice(value.lastIndexOf('@') + 1))
    case 'ip':
      return isIP(value) !== 0
    case 'cidr':
      return isCidr(value)
    case 'uuid':
      return UUID.test(value)
    case 'semver':
      return SEMVER.test(value)
    case 'datetime':
      return DATETIME.test(value) && !Number.isNaN(Date.parse(value))
  }
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol !== '' && url.host !== ''
  } catch {
    return false
  }
}

function isCidr(value: string): boolean {
  const slash = value.lastIndexOf('/')
  if (slash < 0) return false
  const version = isIP(value.slice(0, slash))
  const bits = value.slice(slash + 1)
  if (version === 0 || !/^\d{1,3}$/.test(bits)) return false
  return Number(bits) <= (version === 4 ? 32 : 128)
}
