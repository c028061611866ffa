import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from '@jest/globals'
import { newFingerprintKey } from '../../../src/adapters/fingerprint-key.js'
import { FINGERPRINT_KEY_BYTES, secretFingerprint } from '../../../src/report/secret-fingerprint.js'
import { fingerprint, TEST_FINGERPRINT_KEY as KEY } from '../../support/secret-fingerprint.js'

const otherKey = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)

describe('secretFingerprint', () => {
  it('is the first 12 hex digits of HMAC-SHA256 under the key', () => {
    const mac = createHmac('sha256', KEY).update('planted-secret-value-1').digest('hex')
    expect(secretFingerprint('planted-secret-value-1', KEY)).toBe(
      `(sensitive value, fingerprint ${mac.slice(0, 12)})`
    )
    expect(secretFingerprint('hunter2', KEY)).toBe(fingerprint('hunter2'))
  })

  it('shows equal values alike and different values differently under one key', () => {
    expect(secretFingerprint('1234', KEY)).toBe(secretFingerprint('1234', KEY))
    expect(secretFingerprint('1234', KEY)).not.toBe(secretFingerprint('1235', KEY))
  })

  it('shows one value differently under another key', () => {
    expect(secretFingerprint('1234', KEY)).not.toBe(secretFingerprint('1234', otherKey))
  })

  it('no longer shows the plain sha256 of the value', () => {
    const plain = createHash('sha256').update('planted-secret-value-1').digest('hex')
    expect(plain.slice(0, 12)).toBe('c4404fa785ec')
    expect(secretFingerprint('planted-secret-value-1', KEY)).not.toContain('c4404fa785ec')
    expect(secretFingerprint('planted-secret-value-1', KEY)).not.toContain('sha256')
  })

  it.each([0, 16, 31])('refuses a key of %i bytes', (length) => {
    expect(() => secretFingerprint('1234', new Uint8Array(length))).toThrow(
      `a Secret fingerprint key must have at least 32 bytes, got ${length}`
    )
  })
})

describe('newFingerprintKey', () => {
  it('makes 32 random bytes, a different key each time', () => {
    const [a, b] = [newFingerprintKey(), newFingerprintKey()]
    expect(a).toHaveLength(FINGERPRINT_KEY_BYTES)
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false)
  })
})
