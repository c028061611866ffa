// The oras layer reader (docs/compatibility.md#oras): archives made by the real GNU tar of this
// machine, in its three formats, read as tar itself lists them; hostile archives (made by tar,
// or a tar header edited by hand where tar refuses to write one) refused with Tazuna's
// messages (pepabo/tazuna pkg/manager/oras/extractor.go).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, linkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from '@jest/globals'
import { readTarGz, type ArchiveEntry } from '../../../src/render/oras/archive.js'
import { withDeclaredSize } from '../../support/oras-artifacts.js'

function scratch(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'tazuna-oras-archive-'))
}

/** `tar -czf` of `names` inside `dir`, with extra tar flags; the archive's bytes. */
function tarGz(dir: string, names: string[], flags: string[] = []): Uint8Array {
  const out = path.join(dir, '..', `${path.basename(dir)}.tgz`)
  execFileSync('tar', ['-czf', out, ...flags, '-C', dir, ...names])
  return readFileSync(out)
}

/** What `tar -tvzf` lists: names, in order (GNU tar's own reading of the archive). */
function tarNames(archive: Uint8Array): string[] {
  const dir = scratch()
  writeFileSync(path.join(dir, 'a.tgz'), archive)
  return execFileSync('tar', ['-tzf', path.join(dir, 'a.tgz')], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/\/$/, ''))
}

function sampleTree(): string {
  const dir = scratch()
  const long = 'deep/' + 'x'.repeat(90) + '/' + 'y'.repeat(90)
  mkdirSync(path.join(dir, long), { recursive: true })
  writeFileSync(path.join(dir, long, 'kustomization.yaml'), 'resources: [cm.yaml]\n')
  writeFileSync(path.join(dir, 'cm.yaml'), 'kind: ConfigMap\n', { mode: 0o640 })
  symlinkSync('cm.yaml', path.join(dir, 'link.yaml'))
  linkSync(path.join(dir, 'cm.yaml'), path.join(dir, 'hard.yaml'))
  return dir
}

const byName = (entries: ArchiveEntry[]) => new Map(entries.map((e) => [e.name, e]))

describe('readTarGz on archives made by GNU tar', () => {
  it.each([['gnu'], ['pax'], ['ustar']])(
    'reads the %s format: names as tar lists them, contents, modes and links',
    (format) => {
      const dir = sampleTree()
      const names = format === 'ustar' ? ['cm.yaml', 'link.yaml', 'hard.yaml'] : ['.']
      const archive = tarGz(dir, names, [`--format=${format}`])
      const entries = readTarGz(archive)
      expect(entries.map((e) => e.name)).toEqual(
        tarNames(archive).map((n) => path.posix.normalize(n).replace(/\/$/, '') || '.')
      )
      const found = byName(entries)
      // tar stores the second name of a hard-linked file as a link to the first it wrote.
      const pair = [found.get('cm.yaml'), found.get('hard.yaml')]
      const file = pair.find((e) => e?.kind === 'file') as {
        name: string
        mode: number
        data: Uint8Array
      }
      expect(file.mode).toBe(0o640)
      expect(Buffer.from(file.data).toString()).toBe('kind: ConfigMap\n')
      expect(pair.find((e) => e?.kind === 'hardlink')).toMatchObject({ target: file.name })
      expect(found.get('link.yaml')).toEqual({
        kind: 'symlink',
        name: 'link.yaml',
        target: 'cm.yaml'
      })
    }
  )

  it.each([['gnu'], ['pax']])('reads names over 100 bytes in the %s format', (format) => {
    const entries = readTarGz(tarGz(sampleTree(), ['.'], [`--format=${format}`]))
    const deep = entries.find((e) => e.name.endsWith('/kustomization.yaml'))
    expect(deep?.name).toBe(`deep/${'x'.repeat(90)}/${'y'.repeat(90)}/kustomization.yaml`)
  })

  it('reads 10,000 entries, Tazuna’s limit', () => {
    const dir = scratch()
    for (let i = 0; i < 9_999; i++) writeFileSync(path.join(dir, `f${i}`), '')
    expect(readTarGz(tarGz(dir, ['.']))).toHaveLength(10_000)
  })
})

describe('readTarGz refuses what Tazuna refuses', () => {
  it('refuses a name escaping with ..', () => {
    const dir = scratch()
    mkdirSync(path.join(dir, 'in'))
    writeFileSync(path.join(dir, 'evil.txt'), 'x')
    const archive = tarGz(path.join(dir, 'in'), ['../evil.txt'], ['-P'])
    expect(() => readTarGz(archive)).toThrow(
      'oras extract: "../evil.txt": path escapes dest (zip slip)'
    )
  })

  it('refuses an absolute name', () => {
    const dir = scratch()
    writeFileSync(path.join(dir, 'abs.txt'), 'x')
    const archive = tarGz(dir, [path.join(dir, 'abs.txt')], ['-P'])
    expect(() => readTarGz(archive)).toThrow(
      /^oras extract: "\/.*abs\.txt": absolute path is not allowed$/
    )
  })

  it.each([
    ['a relative symlink out', '../../etc/passwd', 'link target escapes dest: path escapes dest'],
    ['an absolute symlink', '/etc/passwd', 'absolute link target "/etc/passwd" is not allowed']
  ])('refuses %s', (_, target, why) => {
    const dir = scratch()
    mkdirSync(path.join(dir, 'sub'))
    symlinkSync(target, path.join(dir, 'sub', 'out'))
    expect(() => readTarGz(tarGz(dir, ['sub/out']))).toThrow(`oras extract: "sub/out": ${why}`)
  })

  it('refuses a FIFO and a character device as unsupported entry types', () => {
    const dir = scratch()
    execFileSync('mkfifo', [path.join(dir, 'fifo')])
    expect(() => readTarGz(tarGz(dir, ['fifo']))).toThrow(
      'oras extract: "fifo": unsupported tar entry type "6"'
    )
    // /dev/null itself, archived by tar as a character device.
    const device = tarGz(dir, ['/dev/null'], ['-P', '--transform', 's,^/,,'])
    expect(() => readTarGz(device)).toThrow(
      'oras extract: "dev/null": unsupported tar entry type "3"'
    )
  })

  it('refuses entry 10,001', () => {
    const dir = scratch()
    for (let i = 0; i < 10_000; i++) writeFileSync(path.join(dir, `f${i}`), '')
    expect(() => readTarGz(tarGz(dir, ['.']))).toThrow(
      'oras extract: entry count exceeds limit (10000)'
    )
  })

  it('refuses a declared size over 1 GiB before reading any content', () => {
    const dir = scratch()
    writeFileSync(path.join(dir, 'big'), 'small')
    const tar = Buffer.from(gunzipSync(tarGz(dir, ['big'], ['--format=gnu'])))
    // 2^40 bytes as a GNU base-256 size field; tar would not write such a file for us.
    expect(() => readTarGz(gzipSync(withDeclaredSize(tar, 2 ** 40)))).toThrow(
      'oras extract: total size exceeds limit (1073741824 bytes)'
    )
  })

  it('counts content across files against the limit', () => {
    const dir = scratch()
    writeFileSync(path.join(dir, 'a'), 'x'.repeat(600))
    writeFileSync(path.join(dir, 'b'), 'x'.repeat(600))
    expect(() =>
      readTarGz(tarGz(dir, ['a', 'b']), { maxTotalBytes: 1000, maxEntries: 10 })
    ).toThrow('oras extract: total size exceeds limit (1000 bytes)')
  })

  it('refuses a layer that is not gzip, as Go’s gzip reader does', () => {
    expect(() => readTarGz(new TextEncoder().encode('plain text'))).toThrow(
      'oras extract: gzip reader: gzip: invalid header'
    )
  })

  it('refuses an entry written through a symlink of the same archive (ours)', () => {
    const dir = scratch()
    mkdirSync(path.join(dir, 'real'))
    symlinkSync('real', path.join(dir, 'alias'))
    const first = tarGz(dir, ['alias'])
    // A second archive member below the symlink: tar appends it with -r on the plain tar.
    const tarFile = path.join(dir, '..', `${path.basename(dir)}-through.tar`)
    writeFileSync(tarFile, gunzipSync(first))
    rmLink(dir)
    mkdirSync(path.join(dir, 'alias'))
    writeFileSync(path.join(dir, 'alias', 'x'), 'x')
    execFileSync('tar', ['-rf', tarFile, '-C', dir, 'alias/x'])
    expect(() => readTarGz(gzipSync(readFileSync(tarFile)))).toThrow(
      'oras extract: "alias/x": path goes through the symlink "alias" of the archive'
    )
  })
})

function rmLink(dir: string): void {
  execFileSync('rm', [path.join(dir, 'alias')])
}
