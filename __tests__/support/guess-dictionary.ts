/**
 * An offline guessing attack on published Secret fingerprints, as a reader of a pull request
 * could run it: for each guess of a value (and its base64 form, as it stands in a Secret's
 * `data`), the digests anyone can compute without a key — sha256, sha1, md5 — and the forms
 * the value itself could leak in. {@link guessesIn} lists every guess an output confirms.
 */
import { createHash } from 'node:crypto'

/** Passwords people pick most (guessDictionary adds every 4-digit PIN). */
const COMMON = `
password password1 password123 passw0rd Password1 p@ssw0rd secret secret123 hunter2 letmein
welcome welcome1 qwerty qwerty123 qwertyuiop azerty asdfgh asdfghjkl zxcvbnm 1q2w3e4r
1qaz2wsx abc123 abcdef abcd1234 admin admin123 administrator root toor changeme default
guest test test123 testing demo master dragon monkey shadow sunshine princess football
baseball superman batman trustno1 iloveyou starwars whatever freedom michael jennifer
charlie jordan23 mustang access login hello hello123 computer internet postgres mysql redis
example changeit token apikey api-key database db-password pass 12345 123456 1234567
12345678 123456789 1234567890 111111 000000 654321 666666 121212 123123 112233 159753
987654321
`
  .trim()
  .split(/\s+/)

/**
 * Every guess: `planted` (the values a test put in Secrets), 0000–9999 and the common list,
 * each also in its base64 form (the text a `data` value is).
 */
export function guessDictionary(planted: readonly string[]): string[] {
  const pins = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'))
  const values = [...new Set([...planted, ...pins, ...COMMON])]
  return [...new Set([...values, ...values.map(base64)])]
}

const base64 = (value: string): string => Buffer.from(value, 'utf8').toString('base64')

const ALGORITHMS = ['sha256', 'sha1', 'md5'] as const
const SHORTEST_PREFIX = 8
const LONGEST_PREFIX = 16

/** A guess an output confirms, and how. */
export interface ConfirmedGuess {
  guess: string
  how: string
}

/**
 * The guesses `text` confirms:
 * - a digest of a guess, whole or as a prefix of 8–16 hex digits, standing as a hex token of
 *   its own (between non-hex characters: a fingerprint is printed so, and a token test keeps
 *   the random hex of other hashes in the text from matching by chance);
 * - a planted value anywhere in the text (one shorter than 8 characters as a word of its own,
 *   so that `1234` is not found inside a hash), or the base64 of any guess. (A guess that was
 *   not planted may occur as itself — `2026` in a date — without confirming anything.)
 */
export function guessesIn(
  text: string,
  guesses: readonly string[],
  planted: readonly string[]
): ConfirmedGuess[] {
  const digests = digestIndex(guesses)
  const found: ConfirmedGuess[] = []
  for (const token of new Set(text.toLowerCase().match(/[0-9a-f]{8,}/g) ?? [])) {
    const hit = digests.get(token)
    if (hit !== undefined) found.push({ guess: hit.guess, how: `${hit.how} as ${token}` })
  }
  for (const value of planted) {
    if (occursIn(text, value)) found.push({ guess: value, how: 'the value itself' })
  }
  for (const guess of guesses) {
    if (text.includes(base64(guess))) found.push({ guess, how: `its base64 ${base64(guess)}` })
  }
  return found
}

type DigestIndex = Map<string, { guess: string; how: string }>
// One index per dictionary: tens of thousands of digests, searched for in many outputs.
const indexes = new WeakMap<readonly string[], DigestIndex>()

// Every digest of every guess, whole and by prefix, to the guess it confirms.
function digestIndex(guesses: readonly string[]): DigestIndex {
  const known = indexes.get(guesses)
  if (known !== undefined) return known
  const index: DigestIndex = new Map()
  indexes.set(guesses, index)
  for (const guess of guesses) {
    for (const algorithm of ALGORITHMS) {
      const hex = createHash(algorithm).update(guess, 'utf8').digest('hex')
      index.set(hex, { guess, how: `${algorithm} hex` })
      for (let n = SHORTEST_PREFIX; n <= LONGEST_PREFIX; n++) {
        index.set(hex.slice(0, n), { guess, how: `${algorithm} hex prefix` })
      }
    }
  }
  return index
}

function occursIn(text: string, value: string): boolean {
  if (value.length >= 8) return text.includes(value)
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`).test(text)
}
