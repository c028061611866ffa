import { describe, expect, it } from '@jest/globals'
import { compareBytes } from '../../../src/state/byte-order.js'

describe('compareBytes', () => {
  it.each([
    ['a', 'b', -1],
    ['b', 'a', 1],
    ['a', 'a', 0],
    ['a', 'ab', -1],
    ['B', 'a', -1],
    ['_x', 'a', -1],
    ['z', 'ä', -1],
    // UTF-16 order puts the surrogate pair (0xD83D…) before U+E000; UTF-8 order does not.
    ['\ue000', '😀', -1],
    ['\uffff', '𐀀', -1],
    ['😀', '😁', -1],
    ['m//v1/Service/x', 'm/apps/v1/Deployment/x', -1]
  ])('orders %j against %j like Go', (a, b, sign) => {
    expect(Math.sign(compareBytes(a, b))).toBe(sign)
  })

  it('sorts like a byte-wise comparison of the UTF-8 encodings', () => {
    const words = ['😀', '\ue000', 'z', 'ä', 'Z', '\uffff', '𐀀', 'a', '']
    const byBuffer = [...words].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    expect([...words].sort(compareBytes)).toEqual(byBuffer)
  })
})
