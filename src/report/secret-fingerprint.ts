/**
 * What a Secret value becomes in a content diff or a plan: a fingerprint that tells equal
 * values from different ones within one run and nothing more. It is keyed (HMAC-SHA256) by a
 * random key made for the run, because a plain hash of the value would let anyone who reads
 * the pull request confirm a guess offline (`1234`, `password`): with a key nobody sees, a
 * fingerprint can be checked against nothing. The key comes from the entry point
 * (src/adapters/fingerprint-key.ts); the same value fingerprints alike only under the same key,
 * so fingerprints compare within one report, never across runs.
 */
import { createHmac } from 'node:crypto'

/** Bytes of a fingerprint key: 256 bits, as many as HMAC-SHA256 gives out. */
export const FINGERPRINT_KEY_BYTES = 32

/** Hex digits of the HMAC shown: enough to tell the values of one Secret apart. */
const SHOWN_HEX = 12

/**
 * `(sensitive value, fingerprint <first 12 hex of HMAC-SHA256(key, value)>)`. Throws for a key
 * shorter than {@link FINGERPRINT_KEY_BYTES}: an empty or short key is one a reader could guess,
 * and the fingerprint would confirm guesses of the value again.
 */
export function secretFingerprint(value: string, key: Uint8Array): string {
  if (key.length < FINGERPRINT_KEY_BYTES) {
    throw new Error(
      `a Secret fingerprint key must have at least ${FINGERPRINT_KEY_BYTES} bytes, got ${key.length}`
    )
  }
  const mac = createHmac('sha256', key).update(value, 'utf8').digest('hex')
  return `(sensitive value, fingerprint ${mac.slice(0, SHOWN_HEX)})`
}
