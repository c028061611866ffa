// Go's json.Marshal(string(b)) (src/go/json-bytes.ts). Expected values printed by Go 1.26
// (encoding/json) for these bytes.
import { expect, it } from '@jest/globals'
import { goJsonStringOfBytes } from '../../../src/go/json-string.js'

it.each([
  ['706c61696e', '"plain"'],
  ['e28241', '"\\ufffd\\ufffdA"'],
  ['fffe', '"\\ufffd\\ufffd"'],
  ['eda080', '"\\ufffd\\ufffd\\ufffd"'],
  ['c0af', '"\\ufffd\\ufffd"'],
  ['f09f9880', '"😀"'],
  ['f4908080', '"\\ufffd\\ufffd\\ufffd\\ufffd"'],
  ['613c623e26e280a801080c', '"a\\u003cb\\u003e\\u0026\\u2028\\u0001\\b\\f"'],
  ['e282ac', '"€"'],
  ['f09f98', '"\\ufffd\\ufffd\\ufffd"']
])('bytes %s marshal as %s', (hex, json) => {
  expect(goJsonStringOfBytes(Buffer.from(hex, 'hex'))).toBe(json)
})
