/**
 * The layer of a `type: oras` artifact: a gzip-compressed tar (docs/compatibility.md#oras),
 * read completely and checked before anything is written. Tazuna's limits and refusals apply:
 * at most 1 GiB of file content and 10,000 entries; no absolute names, no `..` escapes, no
 * symlink or hard link leading outside, no devices, FIFOs or other special entries. Messages
 * are Tazuna's (`oras extract: ...`). One rule is ours: an entry below (or replacing) a
 * symlink of the same archive is refused, because writing through it could leave the
 * directory (docs/compatibility.md#limits-on-hostile-input).
 *
 * The tar reading follows Go's archive/tar, which Tazuna uses: ustar, GNU and pax headers
 * (long names, pax `path`, `linkpath` and `size`), base-256 numbers, header checksums, and a
 * pax global header returned as an entry of its own (and so refused as Tazuna does).
 */
import { gunzipSync } from 'node:zlib'
import path from 'node:path'
import { goQuote } from '../../go/quote.js'

/** Tazuna's extraction limits (pepabo/tazuna's defaults: 1 GiB of content, 10,000 entries). */
export interface ArchiveLimits {
  maxTotalBytes: number
  maxEntries: number
}

/** The limits Tazuna applies. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxTotalBytes: 2 ** 30,
  maxEntries: 10_000
}

/** One entry to create, its name cleaned and relative to the artifact root. */
export type ArchiveEntry =
  | { kind: 'directory'; name: string }
  | { kind: 'file'; name: string; mode: number; data: Uint8Array }
  | { kind: 'symlink'; name: string; target: string }
  /** `target` is the linked entry's cleaned name (tar names link targets from the root). */
  | { kind: 'hardlink'; name: string; target: string }

/** The layer was refused or could not be read; the message is Tazuna's `oras extract: ...`. */
export class ArchiveError extends Error {
  override name = 'ArchiveError'
}

const BLOCK = 512
/** Room for headers, padding and pax records besides the content limit. */
const METADATA_ALLOWANCE = 64 * 1024 ** 2

/** Decompresses and reads the layer; throws ArchiveError for anything Tazuna refuses. */
export function readTarGz(
  compressed: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
): ArchiveEntry[] {
  return readTar(gunzip(compressed, limits), limits)
}

function gunzip(compressed: Uint8Array, limits: ArchiveLimits): Uint8Array {
  if (compressed.length < 2 || compressed[0] !== 0x1f || compressed[1] !== 0x8b) {
    throw new ArchiveError('oras extract: gzip reader: gzip: invalid header')
  }
  try {
    return gunzipSync(compressed, {
      maxOutputLength: limits.maxTotalBytes + METADATA_ALLOWANCE
    })
  } catch (error) {
    const e = error as { code?: string; message?: string }
    if (e.code === 'ERR_BUFFER_TOO_LARGE') throw totalSizeError(limits)
    throw new ArchiveError(`oras extract: tar next: ${e.message ?? String(error)}`)
  }
}

/** Reads an uncompressed tar stream into checked entries. */
export function readTar(
  tar: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
): ArchiveEntry[] {
  const entries: ArchiveEntry[] = []
  const symlinks = new Set<string>()
  let total = 0
  for (const header of tarHeaders(tar)) {
    if (entries.length + 1 > limits.maxEntries) {
      throw new ArchiveError(`oras extract: entry count exceeds limit (${limits.maxEntries})`)
    }
    const name = checkedName(header.name)
    refuseThroughSymlink(header.name, name, symlinks)
    switch (header.type) {
      case 'directory':
        entries.push({ kind: 'directory', name })
        break
      case 'file': {
        if (header.size > limits.maxTotalBytes - total) throw totalSizeError(limits)
        total += header.size
        entries.push({ kind: 'file', name, mode: header.mode & 0o777, data: header.data() })
        break
      }
      case 'symlink':
      case 'hardlink':
        entries.push(linkEntry(header.type, header.name, name, header.linkname, symlinks))
        break
      default:
        throw new ArchiveError(
          `oras extract: ${goQuote(header.name)}: unsupported tar entry type ${goQuote(header.type.flag)}`
        )
    }
  }
  return entries
}

function totalSizeError(limits: ArchiveLimits): ArchiveError {
  return new ArchiveError(`oras extract: total size exceeds limit (${limits.maxTotalBytes} bytes)`)
}

/** Tazuna's safeJoin: not empty, not absolute, and not leaving the root once cleaned. */
function checkedName(raw: string): string {
  const fail = (why: string) => new ArchiveError(`oras extract: ${goQuote(raw)}: ${why}`)
  if (raw === '') throw fail('empty entry name')
  if (raw.startsWith('/')) throw fail('absolute path is not allowed')
  const cleaned = path.posix.normalize(raw).replace(/\/+$/, '')
  if (cleaned === '..' || cleaned.startsWith('../')) throw fail('path escapes dest (zip slip)')
  return cleaned === '' ? '.' : cleaned
}

function refuseThroughSymlink(raw: string, name: string, symlinks: ReadonlySet<string>): void {
  const parts = name.split('/')
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/')
    if (symlinks.has(prefix)) {
      throw new ArchiveError(
        `oras extract: ${goQuote(raw)}: path goes through the symlink ${goQuote(prefix)} of the archive`
      )
    }
  }
}

function linkEntry(
  kind: 'symlink' | 'hardlink',
  raw: string,
  name: string,
  linkname: string,
  symlinks: Set<string>
): ArchiveEntry {
  if (linkname.startsWith('/')) {
    throw new ArchiveError(
      `oras extract: ${goQuote(raw)}: absolute link target ${goQuote(linkname)} is not allowed`
    )
  }
  // A symlink's target is relative to its own directory; a hard link names an archive entry.
  const base = kind === 'symlink' ? path.posix.dirname(name) : '.'
  const resolved = path.posix.normalize(path.posix.join(base, linkname))
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new ArchiveError(
      `oras extract: ${goQuote(raw)}: link target escapes dest: path escapes dest`
    )
  }
  if (kind === 'symlink') {
    symlinks.add(name)
    return { kind, name, target: linkname }
  }
  const target = resolved.replace(/\/+$/, '')
  refuseThroughSymlink(raw, target, symlinks)
  return { kind, name, target }
}

/** A header as Go's tar reader returns it (pax and GNU long-name records already applied). */
interface TarHeader {
  name: string
  linkname: string
  mode: number
  size: number
  type: 'file' | 'directory' | 'symlink' | 'hardlink' | { flag: string }
  data: () => Uint8Array
}

function* tarHeaders(tar: Uint8Array): Generator<TarHeader> {
  let offset = 0
  let pax: Record<string, string> = {}
  let longName: string | undefined
  let longLink: string | undefined
  for (;;) {
    if (offset + BLOCK > tar.length) {
      if (offset === tar.length || isZero(tar.subarray(offset))) return
      throw new ArchiveError('oras extract: tar next: unexpected EOF')
    }
    const block = tar.subarray(offset, offset + BLOCK)
    if (isZero(block)) return
    checkChecksum(block)
    const flag = String.fromCharCode(block[156] ?? 0)
    const declared = 'size' in pax ? paxNumber(pax.size) : numeric(block.subarray(124, 136))
    const dataStart = offset + BLOCK
    offset = dataStart + Math.ceil(declared / BLOCK) * BLOCK
    const body = (): Uint8Array => {
      if (dataStart + declared > tar.length) {
        throw new ArchiveError(
          `oras extract: write ${goQuote(headerName(block, pax, longName))}: unexpected EOF`
        )
      }
      return tar.subarray(dataStart, dataStart + declared)
    }
    if (flag === 'x') {
      pax = { ...pax, ...paxRecords(body()) }
      continue
    }
    if (flag === 'L' || flag === 'K') {
      const text = cString(body())
      if (flag === 'L') longName = text
      else longLink = text
      continue
    }
    const name = headerName(block, pax, longName)
    const linkname = pax.linkpath ?? longLink ?? cString(block.subarray(157, 257))
    yield {
      name,
      linkname,
      mode: numeric(block.subarray(100, 108)),
      size: declared,
      type: entryType(flag, name),
      data: body
    }
    pax = {}
    longName = undefined
    longLink = undefined
  }
}

function entryType(flag: string, name: string): TarHeader['type'] {
  if (flag === '0' || (flag === '\0' && !name.endsWith('/'))) return 'file'
  if (flag === '5' || flag === '\0') return 'directory'
  if (flag === '2') return 'symlink'
  if (flag === '1') return 'hardlink'
  return { flag }
}

function headerName(
  block: Uint8Array,
  pax: Record<string, string>,
  longName: string | undefined
): string {
  if (pax.path !== undefined) return pax.path
  if (longName !== undefined) return longName
  const name = cString(block.subarray(0, 100))
  const ustar = cString(block.subarray(257, 263)) === 'ustar' && block[262] === 0
  const prefix = ustar ? cString(block.subarray(345, 500)) : ''
  return prefix === '' ? name : `${prefix}/${name}`
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0)
}

function checkChecksum(block: Uint8Array): void {
  const stored = numeric(block.subarray(148, 156))
  let unsigned = 0
  let signed = 0
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : block[i]!
    unsigned += b
    signed += b > 127 ? b - 256 : b
  }
  if (stored !== unsigned && stored !== signed) {
    throw new ArchiveError('oras extract: tar next: archive/tar: invalid tar header')
  }
}

/** An octal field (NUL/space padded), or base-256 when the high bit of the first byte is set. */
function numeric(field: Uint8Array): number {
  if (field.length > 0 && (field[0]! & 0x80) !== 0) {
    let value = field[0]! & 0x7f
    for (const b of field.subarray(1)) value = value * 256 + b
    return value
  }
  const text = new TextDecoder()
    .decode(field)
    .replace(/[\0 ]+$/g, '')
    .replace(/^[\0 ]+/, '')
  if (text === '') return 0
  if (!/^[0-7]+$/.test(text)) {
    throw new ArchiveError('oras extract: tar next: archive/tar: invalid tar header')
  }
  return parseInt(text, 8)
}

function paxNumber(text: string): number {
  if (!/^\d+$/.test(text)) {
    throw new ArchiveError('oras extract: tar next: archive/tar: invalid tar header')
  }
  return Number(text)
}

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function paxRecords(data: Uint8Array): Record<string, string> {
  const records: Record<string, string> = {}
  let offset = 0
  const invalid = () => new ArchiveError('oras extract: tar next: archive/tar: invalid tar header')
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset)
    if (space < 0) throw invalid()
    const length = Number(new TextDecoder().decode(data.subarray(offset, space)))
    if (!Number.isInteger(length) || length <= space - offset || offset + length > data.length) {
      throw invalid()
    }
    const record = new TextDecoder().decode(data.subarray(space + 1, offset + length - 1))
    const eq = record.indexOf('=')
    if (eq < 0) throw invalid()
    records[record.slice(0, eq)] = record.slice(eq + 1)
    offset += length
  }
  return records
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0)
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end))
}
