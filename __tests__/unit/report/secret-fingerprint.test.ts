import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from '@jest/globals'
import { newFingerprintKey } from '../../../src/adapters/fingerprint-key.js'
import { FINGERPRINT_KEY_BYTES, secretFingerprint } from '../../../src/report/secret-fingerprint.js'
import { guessDictionary, guessesIn } from '../../support/guess-dictionary.js'
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

// The dictionary test's detector (support/guess-dictionary.ts) must find what the sha256
// fingerprints published, or the end-to-end test proves nothing.
describe('guessesIn', () => {
  const planted = ['1234', 'planted-secret-value-1']
  const guesses = guessDictionary(planted)
  const sha256 = (v: string) => createHash('sha256').update(v).digest('hex')

  it.each([
    ['a sha256 prefix of a PIN', `a: (sensitive value, sha256:${sha256('4321').slice(0, 12)})`],
    ['a sha256 prefix of a base64 value', `a: (x, sha256:${sha256('MTIzNA==').slice(0, 8)})`],
    ['a whole md5', `h=${createHash('md5').update('letmein').digest('hex')}`],
    ['a sha1 prefix', `[${createHash('sha1').update('0007').digest('hex').slice(0, 16)}]`],
    ['a planted value', 'token: planted-secret-value-1'],
    ['a short planted value as a word', 'pin: 1234\n'],
    ['the base64 of a guess', 'data: cGFzc3dvcmQ=']
  ])('finds %s', (_, text) => {
    expect(guessesIn(text, guesses, planted)).not.toEqual([])
  })

  it('finds nothing in keyed fingerprints, nor a short planted value inside a hash', () => {
    const text = [...guesses.slice(0, 2000).map((g) => secretFingerprint(g, KEY)), 'ab1234cd'].join(
      '\n'
    )
    expect(guessesIn(text, guesses, planted)).toEqual([])
  })
})
