/**
 * The native kustomize program (docs/renderers.md#native-programs) against its WebAssembly
 * build, which the render-parity corpus holds to the Go oracle: the same Go code, so every
 * kustomization of the test fixtures must render to the same bytes, or fail with the same Go
 * error text, through both — unconfined and confined to the fixtures — and the documents the
 * native program decodes must give the objects the engine's own YAML decoding gives. The arm64
 * build, run under qemu-user, must render all of them as the x64 build does. Then what only the
 * native program does itself: confine reads, stop at render-timeout and max-render-memory, and
 * give way to the WebAssembly build when it cannot start.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { chmodSync, copyFileSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { zstdDecompressSync } from 'node:zlib'
import {
  createGoRenderModule,
  RenderLimitError,
  type GoRenderModule,
  type RenderModuleOptions
} from '../../../src/adapters/render/module.js'
import {
  locateNativeProgram,
  nativeArtifact,
  unpackAhead,
  userCacheDir
} from '../../../src/adapters/render/native-program.js'
import { desiredEntries, objectsFromYaml } from '../../../src/objects/objects.js'
import { renderModuleFiles } from '../../support/render-module.js'
import { fixturesDir } from './harness.js'

const srcDir = path.resolve(import.meta.dirname, '../../../src')
// Lets a child process run src/'s TypeScript as the benchmarks do.
const tsResolve = path.resolve(import.meta.dirname, '../../bench/ts-resolve.mjs')
const onLinux = nativeArtifact('kustomize') !== undefined
const linuxOnly = onLinux ? describe : describe.skip

/** Every directory below the fixtures holding a kustomization. */
function kustomizations(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true })
  const here = entries.some((e) =>
    ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].includes(e.name)
  )
  return [
    ...(here ? [dir] : []),
    ...entries.filter((e) => e.isDirectory()).flatMap((e) => kustomizations(path.join(dir, e.name)))
  ]
}

/** The render's text, or its error as `error: <message>`. */
const outcome = (render: Promise<string>): Promise<string> =>
  render.then(
    (text) => text,
    (error: unknown) => `error: ${(error as Error).message}`
  )

/**
 * Expects the second module of each pair to render `dir` as the first does (the same text, or
 * the same error), unconfined and confined; returns the unconfined outcome.
 */
async function expectSameRenders(
  dir: string,
  [reference, candidate]: readonly [GoRenderModule, GoRenderModule],
  [referenceConfined, candidateConfined]: readonly [GoRenderModule, GoRenderModule]
): Promise<string> {
  const text = await outcome(candidate.kustomize(dir))
  expect(text).toBe(await outcome(reference.kustomize(dir)))
  expect(await outcome(candidateConfined.kustomize(dir))).toBe(
    await outcome(referenceConfined.kustomize(dir))
  )
  return text
}

let executable: string
const native = (options: Partial<RenderModuleOptions> = {}): GoRenderModule =>
  createGoRenderModule({
    locate: renderModuleFiles,
    native: () => Promise.resolve(executable),
    onNativeFailure: (message) => {
      throw new Error(`the native program did not start: ${message}`)
    },
    ...options
  })

beforeAll(async () => {
  if (onLinux) executable = (await locateNativeProgram('kustomize', process.env, srcDir))!
}, 600_000)

it('has a native build of each program for Linux x64 and arm64 only', () => {
  expect(nativeArtifact('kustomize', 'linux', 'x64')).toBe('render-kustomize-linux-x64.zst')
  expect(nativeArtifact('kustomize', 'linux', 'arm64')).toBe('render-kustomize-linux-arm64.zst')
  expect(nativeArtifact('helm', 'linux', 'x64')).toBe('render-helm-linux-x64.zst')
  expect(nativeArtifact('helm', 'linux', 'arm64')).toBe('render-helm-linux-arm64.zst')
  expect(nativeArtifact('kustomize', 'darwin', 'arm64')).toBeUndefined()
  expect(nativeArtifact('helm', 'win32', 'x64')).toBeUndefined()
  expect(nativeArtifact('kustomize', 'linux', 'ia32')).toBeUndefined()
})

linuxOnly('unpacking', () => {
  /** krusty's native build for this machine, compressed, as the bundle ships it. */
  const packedKustomize = (): { artifact: string; packed: Buffer } => {
    const built = execFileSync(
      'bash',
      [path.join(srcDir, 'go/render/module/build.sh'), 'kustomize', 'native'],
      { encoding: 'utf8' }
    ).trim()
    const artifact = nativeArtifact('kustomize')!
    return { artifact, packed: readFileSync(path.join(built, artifact)) }
  }

  it('unpacks the same program with the zstd command and, where there is none, without', async () => {
    const { artifact, packed } = packedKustomize()
    const codeDir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-unpack-'))
    try {
      writeFileSync(path.join(codeDir, artifact), packed)
      const expected = zstdDecompressSync(packed)
      // The runner's zstd, behind a script that notes each call.
      const zstd = execFileSync('sh', ['-c', 'command -v zstd'], { encoding: 'utf8' }).trim()
      const calls = path.join(codeDir, 'calls')
      const bin = path.join(codeDir, 'bin')
      mkdirSync(bin)
      writeFileSync(
        path.join(bin, 'zstd'),
        `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${zstd}' "$@"\n`,
        { mode: 0o755 }
      )
      const withCommand = await locateNativeProgram(
        'kustomize',
        { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
        codeDir
      )
      expect(readFileSync(calls, 'utf8')).toContain(path.join(codeDir, artifact))
      const noCommand = await locateNativeProgram('kustomize', { PATH: codeDir }, codeDir)
      for (const unpacked of [withCommand!, noCommand!]) {
        expect(readFileSync(unpacked).equals(expected)).toBe(true)
        expect(statSync(unpacked).mode & 0o777).toBe(0o700)
      }
      expect(spawnSync(withCommand!, { input: '{"op":"versions"}\n' }).stdout.toString()).toContain(
        'sigs.k8s.io/kustomize/api'
      )
    } finally {
      rmSync(codeDir, { recursive: true, force: true })
    }
  })

  it('unpacks ahead of the start with the zstd command only, from a bundle only', async () => {
    const { artifact, packed } = packedKustomize()
    const codeDir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-ahead-'))
    try {
      writeFileSync(path.join(codeDir, artifact), packed)
      const ahead = await unpackAhead('kustomize', process.env, codeDir, codeDir)
      expect(readFileSync(ahead!).equals(zstdDecompressSync(packed))).toBe(true)
      expect(statSync(ahead!).mode & 0o777).toBe(0o700)
      expect(path.dirname(path.dirname(ahead!))).toBe(codeDir)
      // Without the command this thread would unpack: that waits for a render to need it.
      expect(await unpackAhead('kustomize', { PATH: codeDir }, codeDir)).toBeUndefined()
      // From a checkout the build is made on first use, not ahead.
      expect(await unpackAhead('kustomize', process.env, srcDir)).toBeUndefined()
      expect(
        await unpackAhead('kustomize', { ...process.env, TAZUNA_RENDER_NATIVE: 'off' }, codeDir)
      ).toBeUndefined()
    } finally {
      rmSync(codeDir, { recursive: true, force: true })
    }
  })

  it('keeps the command line’s unpacked program in its cache under the compressed build’s sha256, verified on each use; racing processes each get a whole program', async () => {
    const { artifact, packed } = packedKustomize()
    const expected = zstdDecompressSync(packed)
    const work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-program-cache-'))
    try {
      const codeDir = path.join(work, 'code')
      mkdirSync(codeDir)
      writeFileSync(path.join(codeDir, artifact), packed)
      const cacheDir = userCacheDir({ XDG_CACHE_HOME: path.join(work, 'xdg') })
      expect(cacheDir).toBe(path.join(work, 'xdg', 'tazuna-action'))
      expect(userCacheDir({ HOME: work })).toBe(path.join(work, '.cache', 'tazuna-action'))
      // The same file for both racers, and none left behind half written.
      const racing = await Promise.all(
        [1, 2].map(() => locateNativeProgram('kustomize', process.env, codeDir, work, cacheDir))
      )
      const place = path.join(
        cacheDir,
        'native',
        createHash('sha256').update(packed).digest('hex'),
        'render-kustomize'
      )
      expect(racing).toEqual([place, place])
      expect(readFileSync(place).equals(expected)).toBe(true)
      // The program's sha256, and its identity in the file system when it was hashed.
      const identity = (file: string) => {
        const s = statSync(file, { bigint: true })
        return `${s.dev}:${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}`
      }
      expect(readFileSync(`${place}.sha256`, 'utf8')).toBe(
        `${createHash('sha256').update(expected).digest('hex')}\n${identity(place)}\n`
      )
      // The compressed build's sha256, remembered by its identity: not hashed again.
      expect(readFileSync(path.join(cacheDir, 'native', 'builds'), 'utf8')).toBe(
        `${identity(path.join(codeDir, artifact))}\t${createHash('sha256').update(packed).digest('hex')}\n`
      )
      expect(readdirSync(path.dirname(place)).sort()).toEqual([
        'render-kustomize',
        'render-kustomize.sha256'
      ])
      // A second run unpacks nothing: no zstd on PATH, and the same file (inode) is used.
      const inode = statSync(place).ino
      expect(
        await locateNativeProgram('kustomize', { PATH: codeDir }, codeDir, work, cacheDir)
      ).toBe(place)
      expect(statSync(place).ino).toBe(inode)
      // The same bytes under a new identity (copied back): hashed, used, and recorded anew.
      writeFileSync(`${place}.copy`, expected, { mode: 0o700 })
      renameSync(`${place}.copy`, place)
      expect(
        await locateNativeProgram('kustomize', { PATH: codeDir }, codeDir, work, cacheDir)
      ).toBe(place)
      expect(readFileSync(`${place}.sha256`, 'utf8').split('\n')[1]).toBe(identity(place))
      // A program changed or cut short in the cache is not used: unpacked again.
      writeFileSync(place, expected.subarray(0, 1000), { mode: 0o700 })
      expect(await locateNativeProgram('kustomize', process.env, codeDir, work, cacheDir)).toBe(
        place
      )
      expect(readFileSync(place).equals(expected)).toBe(true)
      expect(spawnSync(place, { input: '{"op":"versions"}\n' }).stdout.toString()).toContain(
        'sigs.k8s.io/kustomize/api'
      )
      // A cache that cannot be written (its parent is a file): unpacked privately, as the
      // action does.
      writeFileSync(path.join(work, 'a-file'), '')
      const privately = await locateNativeProgram(
        'kustomize',
        process.env,
        codeDir,
        work,
        path.join(work, 'a-file', 'tazuna-action')
      )
      expect(privately?.startsWith(path.join(work, 'tazuna-render-'))).toBe(true)
      expect(readFileSync(privately!).equals(expected)).toBe(true)
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })
})

linuxOnly('the native program renders what the WebAssembly build renders', () => {
  const dirs = kustomizations(fixturesDir)
  const confined = { root: fixturesDir, allowed: [] }
  const wasm = createGoRenderModule({ locate: renderModuleFiles })
  const wasmConfined = createGoRenderModule({
    locate: renderModuleFiles,
    confine: () => [confined]
  })
  let nativeFree: GoRenderModule
  let nativeConfined: GoRenderModule
  beforeAll(() => {
    nativeFree = native({ workers: 2 })
    nativeConfined = native({ workers: 2, confine: () => [confined] })
  })

  it('covers at least 40 kustomizations of the fixtures', () => {
    expect(dirs.length).toBeGreaterThanOrEqual(40)
  })

  it.each(dirs.map((dir) => [path.relative(fixturesDir, dir), dir]))(
    '%s',
    async (_, dir) => {
      const text = await expectSameRenders(dir, [wasm, nativeFree], [wasmConfined, nativeConfined])
      if (text.startsWith('error: ')) return
      // The documents the program decoded give the objects the engine's own decoding gives
      // (Object.is on every value: -0 is not 0), and so the same state entries.
      const decoded = nativeFree.documentsOf?.(text)
      expect(decoded).toBeDefined()
      const opts = { file: 'rendered', defaultNamespace: 'fallback' }
      const objects = objectsFromYaml(text, opts, decoded)
      expect(objects).toEqual(objectsFromYaml(text, opts))
      expect(desiredEntries('m', objects)).toEqual(desiredEntries('m', objectsFromYaml(text, opts)))
    },
    120_000
  )
})

// The arm64 build is what an arm64 runner runs; this x64 machine runs it under qemu-user's
// emulation (.ci/run installs qemu-user-static where apt can), and it must render every
// kustomization of the fixtures to the x64 build's bytes, documents and errors.
const qemu = ['qemu-aarch64-static', 'qemu-aarch64'].find(
  (tool) => spawnSync(tool, ['--version']).status === 0
)
const arm64Emulated =
  onLinux && process.arch === 'x64' && qemu !== undefined ? describe : describe.skip

arm64Emulated(
  `the arm64 build renders what the x64 build renders (${qemu ? `under ${qemu}` : 'skipped: no qemu-aarch64 here'})`,
  () => {
    const dirs = kustomizations(fixturesDir)
    const confined = { root: fixturesDir, allowed: [] }
    let work: string
    let program: string
    let x64: GoRenderModule
    let x64Confined: GoRenderModule
    let arm64: GoRenderModule
    let arm64Confined: GoRenderModule
    beforeAll(() => {
      work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-arm64-'))
      // The artifact as bundled (src/go/build-go.sh builds both architectures at once).
      const built = execFileSync(
        'bash',
        [path.join(srcDir, 'go/render/module/build.sh'), 'kustomize', 'native'],
        {
          encoding: 'utf8'
        }
      ).trim()
      program = path.join(work, 'render-kustomize-arm64')
      writeFileSync(
        program,
        zstdDecompressSync(
          readFileSync(path.join(built, nativeArtifact('kustomize', 'linux', 'arm64')!))
        ),
        { mode: 0o700 }
      )
      // The host spawns one executable with the program's flags: this one hands them to qemu.
      const wrapper = path.join(work, 'render-kustomize-arm64.sh')
      writeFileSync(wrapper, `#!/bin/sh\nexec ${qemu} '${program}' "$@"\n`, { mode: 0o700 })
      const arm64Module = (options: Partial<RenderModuleOptions> = {}): GoRenderModule =>
        native({ native: () => Promise.resolve(wrapper), ...options })
      x64 = native()
      x64Confined = native({ confine: () => [confined] })
      arm64 = arm64Module()
      arm64Confined = arm64Module({ confine: () => [confined] })
    }, 600_000)
    afterAll(() => rmSync(work, { recursive: true, force: true }))

    it('is a program for AArch64, which this machine runs only under qemu', () => {
      // ELF e_machine 183: EM_AARCH64.
      expect(readFileSync(program).readUInt16LE(18)).toBe(183)
    })

    it('answers with its build identity, from the same Go and krusty as the x64 build', async () => {
      await outcome(arm64.kustomize(dirs[0]!))
      await outcome(x64.kustomize(dirs[0]!))
      expect(arm64.loaded()).toEqual(x64.loaded())
      expect(arm64.loaded()).toHaveProperty(['sigs.k8s.io/kustomize/api'])
    })

    it.each(dirs.map((dir) => [path.relative(fixturesDir, dir), dir]))(
      '%s',
      async (_, dir) => {
        const text = await expectSameRenders(dir, [x64, arm64], [x64Confined, arm64Confined])
        if (text.startsWith('error: ')) return
        expect(arm64.documentsOf?.(text)).toEqual(x64.documentsOf?.(text))
        expect(arm64.documentsOf?.(text)).toBeDefined()
      },
      120_000
    )
  }
)

linuxOnly('what the native program does itself', () => {
  let base: string
  let repo: string
  let outside: string
  const write = (file: string, text: string | Buffer): void => {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  const configMap = (name: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`
  beforeAll(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'tazuna-native-'))
    repo = path.join(base, 'repo')
    outside = path.join(base, 'outside')
    write(path.join(outside, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
    write(path.join(outside, 'cm.yaml'), configMap('outside'))
    write(path.join(repo, 'small', 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
    write(path.join(repo, 'small', 'cm.yaml'), configMap('small'))
    write(path.join(repo, 'reaching', 'kustomization.yaml'), 'resources:\n  - ../../outside\n')
    write(
      path.join(repo, 'big', 'kustomization.yaml'),
      'configMapGenerator:\n  - name: big\n    files:\n      - big.txt\n'
    )
    write(path.join(repo, 'big', 'big.txt'), Buffer.alloc(40 * 1024 ** 2, 'x'))
  })
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('refuses a resource outside the repository by name, and reads it once allowed', async () => {
    const reaching = path.join(repo, 'reaching')
    const refused = native({ confine: () => [{ root: repo, allowed: [] }] })
    await expect(refused.kustomize(reaching)).rejects.toThrow(
      `${outside} is outside the repository ${repo}; files outside it are not read.`
    )
    const allowed = native({ confine: () => [{ root: repo, allowed: [outside] }] })
    await expect(allowed.kustomize(reaching)).resolves.toContain('name: outside')
  })

  it('stops a render past render-timeout, and renders again afterwards', async () => {
    // The 40 MB generator takes seconds natively; the small kustomization milliseconds.
    const module = native({ timeoutMs: 1500 })
    const failure = module.kustomize(path.join(repo, 'big'))
    await expect(failure).rejects.toThrow(RenderLimitError)
    await expect(failure).rejects.toThrow('within render-timeout (1.5 s)')
    await expect(module.kustomize(path.join(repo, 'small'))).resolves.toContain('name: small')
  })

  it('stops a program past max-render-memory, naming the limit, and renders again afterwards', async () => {
    const module = native({ maxMemoryBytes: 64 * 1024 ** 2 })
    const failure = module.kustomize(path.join(repo, 'big'))
    await expect(failure).rejects.toThrow(RenderLimitError)
    await expect(failure).rejects.toThrow(
      'the render needed more memory than max-render-memory (64.0 MiB) and was stopped'
    )
    await expect(module.kustomize(path.join(repo, 'small'))).resolves.toContain('name: small')
  })

  it('lets the process end with a render pending once let go, and holds it for one otherwise', () => {
    // A process that asks for the seconds-long render and ends its script: held by the pending
    // call, it prints the answer; let go (a render started early and never taken), it ends
    // without waiting for it, and the program with it, not left to finish the render. The
    // program runs from a copy of its own, so that no other test's program counts.
    const program = path.join(base, 'let-go-program')
    copyFileSync(executable, program)
    chmodSync(program, 0o755)
    const script = path.join(base, 'let-go.ts')
    const moduleUrl = new URL(`file://${path.join(srcDir, 'adapters/render/module.ts')}`).href
    writeFileSync(
      script,
      [
        `import { createGoRenderModule } from ${JSON.stringify(moduleUrl)}`,
        `const module = createGoRenderModule({`,
        `  locate: () => { throw new Error('no WebAssembly here') },`,
        `  native: () => Promise.resolve(${JSON.stringify(program)})`,
        `})`,
        `module.kustomize(${JSON.stringify(path.join(repo, 'big'))}).then(`,
        `  (text) => console.log('answered', text.length),`,
        `  (error) => console.log('failed', error.message)`,
        `)`,
        `await module.underway()`,
        `if (process.argv[2] === 'let-go') module.letGo()`,
        `console.log('script done')`
      ].join('\n')
    )
    const run = (mode: string) =>
      spawnSync(
        process.execPath,
        ['--experimental-transform-types', '--import', tsResolve, script, mode],
        { encoding: 'utf8', timeout: 120_000 }
      )
    const held = run('hold')
    expect(held.stderr).not.toContain('Error')
    expect(held.stdout).toMatch(/^script done\nanswered \d+\n$/)
    const letGo = run('let-go')
    expect(letGo.status).toBe(0)
    expect(letGo.stdout).toBe('script done\n')
    // SIGKILL is sent as the process exits; the kernel may take a moment to end the program.
    const deadline = Date.now() + 5000
    while (running(program) > 0 && Date.now() < deadline) spawnSync('sleep', ['0.05'])
    expect(running(program)).toBe(0)
  }, 180_000)

  it('starts the program unpacked ahead, and unpacks at the start when that gave none', async () => {
    for (const ahead of [executable, undefined]) {
      const asked: string[] = []
      const module = createGoRenderModule({
        locate: renderModuleFiles,
        native: () => {
          asked.push('at the start')
          return Promise.resolve(executable)
        },
        nativeAhead: () => {
          asked.push('ahead')
          return Promise.resolve(ahead)
        },
        onLoad: (_, __, runs) => asked.push(runs)
      })
      // Once per program, and none for what no program renders.
      module.unpackAhead(['kustomize', 'raw'])
      module.unpackAhead(['kustomize'])
      await expect(module.kustomize(path.join(repo, 'small'))).resolves.toContain('name: small')
      expect(asked).toEqual(
        ahead === undefined ? ['ahead', 'at the start', 'native'] : ['ahead', 'native']
      )
    }
  })

  it("unpacks the schema check's program ahead once, and starts nothing", () => {
    const asked: string[] = []
    const module = createGoRenderModule({
      locate: renderModuleFiles,
      native: (program) => {
        asked.push(`start ${program}`)
        return Promise.resolve(undefined)
      },
      nativeAhead: (program) => {
        asked.push(`ahead ${program}`)
        return Promise.resolve(undefined)
      }
    })
    module.unpackCheckAhead()
    module.unpackCheckAhead()
    module.unpackAhead(['helmfile'])
    expect(asked).toEqual(['ahead helm'])
  })

  it('gives way to the WebAssembly build when it cannot start, and says why', async () => {
    const told: string[] = []
    const module = createGoRenderModule({
      locate: renderModuleFiles,
      native: () => Promise.resolve(path.join(base, 'no-such-program')),
      onNativeFailure: (message) => told.push(message),
      onLoad: (_, __, runs) => told.push(runs)
    })
    await expect(module.kustomize(path.join(repo, 'small'))).resolves.toContain('name: small')
    expect(told).toEqual([expect.stringContaining('could not start'), 'WebAssembly'])
  })

  it('gives way to the WebAssembly build when it cannot be unpacked, and says why', async () => {
    const told: string[] = []
    const module = createGoRenderModule({
      locate: renderModuleFiles,
      native: () => Promise.reject(new Error('ENOSPC: no space left on device')),
      onNativeFailure: (message) => told.push(message),
      onLoad: (_, __, runs) => told.push(runs)
    })
    await expect(module.kustomize(path.join(repo, 'small'))).resolves.toContain('name: small')
    expect(told).toEqual(['ENOSPC: no space left on device', 'WebAssembly'])
  })
})

/** Processes running `file` (Linux: their command line's first word, from /proc). */
function running(file: string): number {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === file
    } catch {
      return false
    }
  }).length
}
