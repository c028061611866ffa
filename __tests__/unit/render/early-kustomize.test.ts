import { describe, expect, it } from '@jest/globals'
import { deferred } from '../../../src/engine/apply.js'
import { earlyKustomize } from '../../../src/render/kustomize/early.js'
import type { RenderModule } from '../../../src/render/ports.js'

/** A module whose kustomize renders settle when the test says, and that counts each call. */
function controlledModule() {
  const calls: string[] = []
  const renders = new Map<string, ReturnType<typeof deferred<string>>[]>()
  const module: RenderModule = {
    kustomize(dir) {
      calls.push(dir)
      const render = deferred<string>()
      renders.set(dir, [...(renders.get(dir) ?? []), render])
      return render.promise
    },
    helm: () => Promise.reject(new Error('no Helm here')),
    loaded: () => ({ 'sigs.k8s.io/kustomize/api': 'v0.21.1' })
  }
  const finish = (dir: string, text = `rendered ${dir}`) => renders.get(dir)![0]!.resolve(text)
  return { module, calls, finish, renders }
}

/** A sleep that ends when the test says. */
function controlledSleep() {
  const asked: number[] = []
  const wake = deferred<void>()
  return {
    asked,
    sleep: (ms: number) => (asked.push(ms), wake.promise),
    wake: () => wake.resolve()
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Early renders of `dirs` over a controlled module, sleep and State read (waitMs 40). */
function earlyOf(dirs: string[], limit: number, waitMs = 40) {
  const controlled = controlledModule()
  const sleep = controlledSleep()
  const read = deferred<void>()
  const early = earlyKustomize(controlled.module, {
    read: read.promise,
    sleep: sleep.sleep,
    waitMs,
    dirs,
    limit
  })
  return { ...controlled, ...sleep, read, early }
}

describe('earlyKustomize', () => {
  it('starts nothing before the wait, then the directories in order, limit at a time', async () => {
    const { calls, finish, asked, wake } = earlyOf(['/a', '/b', '/c'], 2)
    expect(asked).toEqual([40])
    await settle()
    expect(calls).toEqual([])
    wake()
    await settle()
    expect(calls).toEqual(['/a', '/b'])
    finish('/a')
    await settle()
    expect(calls).toEqual(['/a', '/b', '/c'])
  })

  it('starts no more once the State read answered, and none when it answered within the wait', async () => {
    const { calls, finish, wake, read } = earlyOf(['/a', '/b'], 1)
    wake()
    await settle()
    read.resolve()
    await settle()
    finish('/a')
    await settle()
    expect(calls).toEqual(['/a'])

    const late = earlyOf(['/a'], 1)
    late.read.reject(new Error('a failed read also ends the wait'))
    await settle()
    late.wake()
    await settle()
    expect(late.calls).toEqual([])
  })

  it('starts nothing, and sets no timer, when the wait is Infinity', async () => {
    const { calls, asked, wake } = earlyOf(['/a'], 1, Infinity)
    wake()
    await settle()
    expect(asked).toEqual([])
    expect(calls).toEqual([])
  })

  it('hands a render started early to the first manifest of its directory, once', async () => {
    const { calls, finish, wake, read, early } = earlyOf(['/a', '/b'], 2)
    wake()
    await settle()
    expect(early.untaken()).toBe(2)
    read.resolve()
    const taken = early.module.kustomize('/a')
    expect(calls).toEqual(['/a', '/b'])
    expect(early.untaken()).toBe(1)
    finish('/a', 'the early render')
    await expect(taken).resolves.toBe('the early render')
    // A second manifest of the same directory renders it again.
    void early.module.kustomize('/a')
    expect(calls).toEqual(['/a', '/b', '/a'])
    // The rest of the module is the module's.
    expect(early.module.loaded()).toEqual({ 'sigs.k8s.io/kustomize/api': 'v0.21.1' })
  })

  it('does not start a directory a manifest already rendered itself', async () => {
    const { calls, wake, early } = earlyOf(['/a', '/b'], 2)
    void early.module.kustomize('/a')
    wake()
    await settle()
    expect(calls).toEqual(['/a', '/b'])
    expect(early.untaken()).toBe(1)
  })

  it("reports a failed early render to the manifest that takes it, and nobody's otherwise", async () => {
    const { renders, wake, early } = earlyOf(['/a', '/b'], 2)
    wake()
    await settle()
    // Not taken: its failure goes nowhere (jest fails the test on an unhandled rejection).
    renders.get('/b')![0]!.reject(new Error('kustomization.yaml of /b: bad'))
    renders.get('/a')![0]!.reject(new Error('kustomization.yaml of /a: bad'))
    await settle()
    await expect(early.module.kustomize('/a')).rejects.toThrow('kustomization.yaml of /a: bad')
  })
})
