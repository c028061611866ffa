import { describe, expect, it } from '@jest/globals'
import { formatGoFloat, resolveGoNumber } from '../../../src/yaml/go-scalars.js'

// Expected strings printed by Go 1.26: strconv.FormatFloat(f, 'g', -1, 64 | 32).
describe('formatGoFloat', () => {
  it.each([
    [1e6, '1e+06', '1e+06'],
    [123456789, '1.23456789e+08', '1.2345679e+08'],
    [123456, '123456', '123456'],
    [1e20, '1e+20', '1e+20'],
    [1e21, '1e+21', '1e+21'],
    [1e-5, '1e-05', '1e-05'],
    [0.0001, '0.0001', '0.0001'],
    [3, '3', '3'],
    [1.5, '1.5', '1.5'],
    [0.1, '0.1', '0.1'],
    [3.14159265358979, '3.14159265358979', '3.1415927'],
    [-0, '-0', '-0'],
    [-2.5e-7, '-2.5e-07', '-2.5e-07']
  ])('formats %p as %s (64) and %s (32)', (f, g64, g32) => {
    expect(formatGoFloat(f, 64)).toBe(g64)
    expect(formatGoFloat(f, 32)).toBe(g32)
  })
})

// Expected values: go-yaml v2 resolve(), observed through the oracle (fixtures/yaml-semantics).
describe('resolveGoNumber', () => {
  it.each([
    ['0755', 493n],
    ['-0755', -493n],
    ['0o17', 15n],
    ['0x_1f', 31n],
    ['+0x1f', 31n],
    ['-0b101', -5n],
    ['1__000_', 1000n],
    ['-0', 0n],
    ['18446744073709551615', 18446744073709551615n],
    ['08', 8],
    ['1.e3', 1000],
    ['.5e3', 500],
    ['-0.0', -0],
    ['1e-400', 0],
    ['1e400', '1e400'],
    ['0xFFFFFFFFFFFFFFFFFF', '0xFFFFFFFFFFFFFFFFFF'],
    ['190:20:30', '190:20:30'],
    ['._5', '._5'],
    ['.', '.'],
    ['1.2.3', '1.2.3'],
    ['2001-12-14', '2001-12-14']
  ])('resolves %s like go-yaml v2', (source, expected) => {
    expect(resolveGoNumber(source)).toEqual(expected)
  })
})
