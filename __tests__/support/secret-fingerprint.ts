/**
 * What a Secret value looks like in content diffs and plan (src/report/secret-fingerprint.ts),
 * written here from its definition — HMAC-SHA256 of the value under the run's key, first 12 hex
 * digits — so the tests compute it independently of the code under test. Tests inject
 * {@link TEST_FINGERPRINT_KEY} where the code would use a fresh random key per run.
 */
import { createHmac } from 'node:crypto'

/** A known key of 32 bytes (0x00..0x1f) that tests pass in place of the run's random key. */
export const TEST_FINGERPRINT_KEY: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => i)

/** `(sensitive value, fingerprint <first 12 hex of HMAC-SHA256(key, value)>)`. */
export const fingerprint = (value: string, key: Uint8Array = TEST_FINGERPRINT_KEY): string =>
  `(sensitive value, fingerprint ${createHmac('sha256', key).update(value).digest('hex').slice(0, 12)})`

/** Every fingerprint in `text`, in order of appearance. */
export const fingerprintsIn = (text: string): string[] =>
  [...text.matchAll(/\(sensitive value, fingerprint [0-9a-f]{12}\)/g)].map((m) => m[0])
