// The secret registry: every value reaches the sink once and is redacted from text.
import { describe, expect, it } from '@jest/globals'
import { createSecretRegistry, REDACTED } from '../../../src/render/secrets.js'

describe('createSecretRegistry', () => {
  it('forwards each new value to the sink once', () => {
    const seen: string[] = []
    const r = createSecretRegistry((v) => seen.push(v))
    r.registerSecret('a-secret')
    r.registerSecret('a-secret')
    expect(seen).toEqual(['a-secret'])
  })

  it('ignores empty and blank values, which would mask everything', () => {
    const seen: string[] = []
    const r = createSecretRegistry((v) => seen.push(v))
    r.registerSecret('')
    r.registerSecret('  ')
    expect(seen).toEqual([])
    expect(r.redact('text  ')).toBe('text  ')
  })

  it('registers a multi-line value and each of its lines', () => {
    const seen: string[] = []
    const r = createSecretRegistry((v) => seen.push(v))
    r.registerSecret('line-one\nline-two\n')
    expect(seen).toEqual(['line-one\nline-two\n', 'line-one', 'line-two'])
    expect(r.redact('got line-two only')).toBe(`got ${REDACTED} only`)
  })

  it('redacts longer values first so a prefix does not leave a tail behind', () => {
    const r = createSecretRegistry()
    r.registerSecret('abc')
    r.registerSecret('abcdef')
    expect(r.redact('x abcdef y abc')).toBe('x *** y ***')
  })
})
