// The memory ceiling of the render programs (docs/reliability.md#render-limits): checked on tiny
// modules written byte by byte from the WebAssembly binary format (V8 itself says what a
// memory may grow to) and on the real render program.
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { brotliDecompressSync } from 'node:zlib'
import { WASM_PAGE_BYTES, WasmMemoryError, withMemoryMaximum } from '../../../src/go/wasm-memory.js'
import { renderModuleFiles } from '../../support/render-module.js'

interface WasmApi {
  validate(bytes: Uint8Array): boolean
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object) => { exports: { mem: { grow(pages: number): number } } }
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]
/** A module with one memory (`limits`: flag, min[, max]) exported as `mem`. */
const moduleWith = (limits: number[]): Uint8Array =>
  Uint8Array.from([
    ...HEADER,
    ...[0x05, limits.length + 1, 0x01, ...limits],
    ...[0x07, 0x07, 0x01, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00]
  ])

const memoryOf = (bytes: Uint8Array) => new wasm.Instance(new wasm.Module(bytes)).exports.mem

describe('withMemoryMaximum', () => {
  it('lets the memory grow to the maximum and not one page further', () => {
    const mem = memoryOf(withMemoryMaximum(moduleWith([0x00, 0x01]), 4 * WASM_PAGE_BYTES))
    expect(mem.grow(3)).toBe(1)
    expect(() => mem.grow(1)).toThrow(RangeError)
  })

  it('keeps a lower maximum the module already declares', () => {
    const mem = memoryOf(withMemoryMaximum(moduleWith([0x01, 0x01, 0x02]), 100 * WASM_PAGE_BYTES))
    expect(mem.grow(1)).toBe(1)
    expect(() => mem.grow(1)).toThrow(RangeError)
  })

  it('never sets the maximum below the initial size', () => {
    const mem = memoryOf(withMemoryMaximum(moduleWith([0x00, 0x03]), 1))
    expect(() => mem.grow(1)).toThrow(RangeError)
  })

  it('refuses a module without a memory of its own', () => {
    expect(() => withMemoryMaximum(Uint8Array.from(HEADER), 1 << 30)).toThrow(WasmMemoryError)
    expect(() => withMemoryMaximum(Uint8Array.from([1, 2, 3]), 1 << 30)).toThrow(WasmMemoryError)
  })

  it('changes only the memory section of the real render program', () => {
    const original = new Uint8Array(
      brotliDecompressSync(readFileSync(renderModuleFiles('kustomize').wasm))
    )
    const bounded = withMemoryMaximum(original, 1 << 30)
    expect(wasm.validate(bounded)).toBe(true)
    // Go declares 1 memory without a maximum (flag and maximum added) and pads its section
    // sizes to 5 bytes (the rewritten size is minimal): a few bytes longer or shorter.
    const grown = bounded.length - original.length
    expect(Math.abs(grown)).toBeLessThanOrEqual(8)
    let first = 0
    while (original[first] === bounded[first]) first++
    // Everything after the memory section (code, data: megabytes) is the same bytes, moved.
    const after = first + 16
    const tail = Buffer.from(bounded.subarray(after + grown))
    expect(tail.equals(Buffer.from(original.subarray(after)))).toBe(true)
  })
})
