import { describe, expect, it } from '@jest/globals'
import { resolveGoScalar } from '../../../src/go/yaml-resolve.js'
import { formatGoFloat } from '../../../src/go/yaml-scalars.js'

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
    [-2.5e-7, '-2.5e-07', '-2.5e-07'],
    [1e300, '1e+300', '+Inf'],
    [-3.5e38, '-3.5e+38', '-Inf'],
    [1e-50, '1e-50', '0']
  ])('formats %p as %s (64) and %s (32)', (f, g64, g32) => {
    expect(formatGoFloat(f, 64)).toBe(g64)
    expect(formatGoFloat(f, 32)).toBe(g32)
  })
})

// Expected values: go-yaml v2 resolve(), observed through the oracle (fixtures/yaml-semantics).
describe('resolveGoScalar', () => {
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
    expect(resolveGoScalar(source).value).toEqual(expected)
  })

  // Go 1.26, sigs.k8s.io/yaml v1.6.0 Unmarshal of `a: <scalar>` and go.yaml.in/yaml/v2 v2.4.2
  // Marshal of the string (quoted exactly when the tag is not str).
  it.each([
    ['0b-1', 'int', -1n],
    ['0b+101', 'int', 5n],
    ['0b-1_0', 'int', -2n],
    ['-0b-1', 'str', '-0b-1'],
    ['0b-', 'str', '0b-'],
    ['0b+1000000000000000000000000000000000000000000000000000000000000000', 'str', undefined],
    ['yes', 'bool', true],
    ['~', 'null', null],
    ['', 'null', null],
    ['<<', 'str', '<<'],
    ['-.Inf', 'float', -Infinity],
    ['2001-12-14', 'timestamp', '2001-12-14']
  ])('gives %s the tag %s', (source, tag, value) => {
    expect(resolveGoScalar(source)).toEqual({ tag, value: value === undefined ? source : value })
  })
})
