/**
 * ConfigMap data keys for state entries (docs/compatibility.md#data-key-encoding). ConfigMap keys
 * allow only `[-._a-zA-Z0-9]`, so the logical key is escaped byte by byte over its UTF-8 form.
 * The legacy encoder only replaced `/` with `__` and produced invalid keys for names with `:`
 * (docs/compatibility.md#legacy-data-keys); its keys still decode correctly here, but nothing may
 * write them.
 */

const PLAIN_BYTE = /^[-.a-zA-Z0-9]$/
const SLASH = 0x2f
const UNDERSCORE = 0x5f
const LOWER_X = 0x78

/** Encodes a logical state key: `/` → `__`; `-` `.` alphanumerics kept; other bytes → `_xhh`. */
export function encodeDataKey(key: string): string {
  let out = ''
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte)
    if (byte === SLASH) out += '__'
    else if (PLAIN_BYTE.test(c)) out += c
    else out += `_x${byte.toString(16).padStart(2, '0')}`
  }
  return out
}

/**
 * Decodes a data key left to right: `__` → `/`, `_x` + two hex digits (either case) → that byte,
 * any other `_` stays literal (so legacy keys and odd keys like `_zfoo` or `trailing_` survive).
 */
export function decodeDataKey(dataKey: string): string {
  // Without a `_x` escape, the left-to-right scan below only turns each `__` into `/`, which is
  // what replaceAll does (non-overlapping, left to right); State keys are mostly of that kind.
  if (!dataKey.includes('_x')) return dataKey.replaceAll('__', '/')
  const input = Buffer.from(dataKey, 'utf8')
  const out: number[] = []
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] ?? 0
    if (byte === UNDERSCORE && input[i + 1] === UNDERSCORE) {
      out.push(SLASH)
      i += 1
    } else if (byte === UNDERSCORE && input[i + 1] === LOWER_X && isHexPair(input, i + 2)) {
      out.push(parseInt(input.subarray(i + 2, i + 4).toString('latin1'), 16))
      i += 3
    } else {
      out.push(byte)
    }
  }
  return Buffer.from(out).toString('utf8')
}

function isHexPair(bytes: Buffer, at: number): boolean {
  return (
    at + 2 <= bytes.length && /^[0-9a-fA-F]{2}$/.test(bytes.subarray(at, at + 2).toString('latin1'))
  )
}
