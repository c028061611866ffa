/**
 * The content size read from a zstd frame's header, with frames made by Node's own zstd (the
 * expected sizes are the inputs' lengths; RFC 8878, section 3.1.1.1, gives the field's 1/2/4/8
 * byte forms and the +256 offset of the 2-byte one, which the sizes below straddle).
 */
import { expect, it } from '@jest/globals'
import { Buffer } from 'node:buffer'
import { createZstdCompress, zstdCompressSync } from 'node:zlib'
import { zstdContentSize } from '../../../src/adapters/render/native-program.js'

const bytesOf = (length: number): Buffer => Buffer.alloc(length, 'tazuna ')

it.each([0, 1, 255, 256, 257, 65_791, 65_792, 1_000_000, 11_563_170])(
  'reads the size a one-shot frame of %i bytes declares',
  (length) => {
    expect(zstdContentSize(zstdCompressSync(bytesOf(length)))).toBe(length)
  }
)

it('reads the size behind a dictionary id and a window descriptor', () => {
  // Magic, descriptor 0b10_0_00_0_01 (4-byte size, not single segment, 1-byte dictionary id),
  // window descriptor, dictionary id 7, size 70,000.
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0b1000_0001, 0x58, 7, 0, 0, 0, 0])
  header.writeUInt32LE(70_000, 7)
  expect(zstdContentSize(header)).toBe(70_000)
})

it('says nothing for a streamed frame, a truncated header or other bytes', async () => {
  const streamed = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    const zstd = createZstdCompress()
    zstd.on('data', (chunk: Buffer) => chunks.push(chunk))
    zstd.on('end', () => resolve(Buffer.concat(chunks)))
    zstd.on('error', reject)
    zstd.write(bytesOf(100_000))
    zstd.end()
  })
  expect(zstdContentSize(streamed)).toBeUndefined()
  expect(zstdContentSize(zstdCompressSync(bytesOf(100_000)).subarray(0, 6))).toBeUndefined()
  expect(zstdContentSize(Buffer.from('not a zstd frame'))).toBeUndefined()
  expect(zstdContentSize(Buffer.alloc(0))).toBeUndefined()
})
