/**
 * A ceiling on a WebAssembly module's own memory (docs/reliability.md#render-limits). Go's
 * `js/wasm` modules define their linear memory with no maximum, so a runaway render grows it
 * toward 4 GiB; Node's worker `resourceLimits` bound only the JavaScript heap. Declaring a
 * maximum in the module's memory section makes `memory.grow` fail past it, and Go then stops
 * with "out of memory" instead of taking the machine. Pure: bytes in, bytes out.
 */

/** WebAssembly's page size. */
export const WASM_PAGE_BYTES = 65_536

/** The module is not one this can bound (no memory section of its own, or malformed). */
export class WasmMemoryError extends Error {
  override name = 'WasmMemoryError'
}

/**
 * `module` with its memory's maximum set to `maxBytes` (rounded down to whole pages, never
 * below the memory's initial size; an existing lower maximum is kept). Every other byte is
 * unchanged. Throws WasmMemoryError when the module defines no memory.
 */
export function withMemoryMaximum(module: Uint8Array, maxBytes: number): Uint8Array {
  if (module.length < 8 || readUint32(module, 0) !== 0x6d736100) {
    throw new WasmMemoryError('not a WebAssembly module')
  }
  let at = 8
  while (at < module.length) {
    const id = module[at]!
    const size = readLeb(module, at + 1)
    const start = size.next
    const end = start + size.value
    if (end > module.length) throw new WasmMemoryError('a section runs past the end')
    if (id === 5) return replaceSection(module, at, end, memorySection(module, start, maxBytes))
    at = end
  }
  throw new WasmMemoryError('the module defines no memory')
}

/** The memory section's contents with the maximum set. */
function memorySection(module: Uint8Array, start: number, maxBytes: number): number[] {
  const count = readLeb(module, start)
  if (count.value !== 1) throw new WasmMemoryError(`${count.value} memories, expected 1`)
  const flags = module[count.next]!
  if (flags !== 0 && flags !== 1) throw new WasmMemoryError(`memory flags ${flags} not supported`)
  const min = readLeb(module, count.next + 1)
  const existing = flags === 1 ? readLeb(module, min.next).value : Infinity
  const max = Math.max(min.value, Math.min(existing, Math.floor(maxBytes / WASM_PAGE_BYTES)))
  return [1, 1, ...leb(min.value), ...leb(max)]
}

function replaceSection(
  module: Uint8Array,
  at: number,
  end: number,
  contents: number[]
): Uint8Array {
  const header = [5, ...leb(contents.length)]
  const out = new Uint8Array(at + header.length + contents.length + (module.length - end))
  out.set(module.subarray(0, at), 0)
  out.set(header, at)
  out.set(contents, at + header.length)
  out.set(module.subarray(end), at + header.length + contents.length)
  return out
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
  )
}

/** An unsigned LEB128 at `at`: its value and the offset after it. */
function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  for (let i = at; i < bytes.length && shift < 35; i++) {
    const byte = bytes[i]!
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
    if ((byte & 0x80) === 0) return { value, next: i + 1 }
  }
  throw new WasmMemoryError('a malformed number')
}

function leb(value: number): number[] {
  const out: number[] = []
  let rest = value
  do {
    const byte = rest % 128
    rest = Math.floor(rest / 128)
    out.push(rest > 0 ? byte | 0x80 : byte)
  } while (rest > 0)
  return out
}
