/**
 * The run's key for Secret fingerprints (src/report/secret-fingerprint.ts): random bytes from
 * the system's CSPRNG, made once per run by the entry point and never written anywhere, so a
 * fingerprint in a comment or a report can be checked against no guess of the value.
 */
import { randomBytes } from 'node:crypto'
import { FINGERPRINT_KEY_BYTES } from '../report/secret-fingerprint.js'

/** A fresh key of {@link FINGERPRINT_KEY_BYTES} random bytes. */
export function newFingerprintKey(): Uint8Array {
  return new Uint8Array(randomBytes(FINGERPRINT_KEY_BYTES))
}
