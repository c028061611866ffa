import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createNodeFiles } from '../../../src/adapters/files/node-files.js'

// The file ports on a real temporary directory.
let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tazuna-node-files-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('createNodeFiles', () => {
  it('tells files, directories and missing paths apart', async () => {
    const files = createNodeFiles()
    writeFileSync(join(root, 'a.yaml'), 'a: 1\n')
    mkdirSync(join(root, 'dir'))
    expect(await files.kindOf(join(root, 'a.yaml'))).toBe('file')
    expect(await files.kindOf(join(root, 'dir'))).toBe('directory')
    expect(await files.kindOf(join(root, 'missing'))).toBeUndefined()
    expect(await files.exists(join(root, 'dir'))).toBe(true)
    expect(await files.exists(join(root, 'missing'))).toBe(false)
  })

  it('rejects a missing file with the Node error code', async () => {
    await expect(createNodeFiles().readText(join(root, 'missing'))).rejects.toMatchObject({
      code: 'ENOENT'
    })
  })

  it('makes temporary directories under the given temp dir', async () => {
    const temp = await createNodeFiles({ tempDir: root }).makeTempDir('tazuna-test-')
    expect(temp.path.startsWith(join(root, 'tazuna-test-'))).toBe(true)
    expect(statSync(temp.path).isDirectory()).toBe(true)
  })

  it('writes temporary files readable by the owner only', async () => {
    const temp = await createNodeFiles({ tempDir: root }).makeTempDir('tazuna-test-')
    const file = await temp.writePrivate('values.json', '{"password":"x"}')
    expect(file).toBe(join(temp.path, 'values.json'))
    expect(readFileSync(file, 'utf8')).toBe('{"password":"x"}')
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('removes a temporary directory with its files, twice without error', async () => {
    const temp = await createNodeFiles({ tempDir: root }).makeTempDir('tazuna-test-')
    await temp.writePrivate('values.json', '{}')
    await temp.remove()
    await temp.remove()
    expect(existsSync(temp.path)).toBe(false)
  })
})
