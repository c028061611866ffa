/**
 * What a Secret value looks like in content diffs and plan (src/report/content-form.ts), written
 * here from its definition — sha256 of the value, first 12 hex digits — so the tests compute
 * it independently of the code under test.
 */
import { createHash } from 'node:crypto'

/** `(sensitive value, sha256:<first 12 hex of sha256(value)>)`. */
export const fingerprint = (value: string): string =>
  `(sensitive value, sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)})`
