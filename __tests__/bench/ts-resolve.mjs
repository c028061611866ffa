// Lets Node run the benchmark's TypeScript directly (type stripping): scripts/bench.ts and the
// files of this folder import `./x.js` as NodeNext requires, but only `./x.ts` exists. Only
// relative imports made from those files are touched. Used by scripts/bench.sh (`node --import`).
import { registerHooks } from 'node:module'

const roots = [
  new URL('.', import.meta.url).href,
  new URL('../../scripts/bench', import.meta.url).href,
  // risk-pass.ts times the risk pass in-process: it imports src/ (with transform-types)
  new URL('../../src/', import.meta.url).href
]

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (err) {
      const ours =
        roots.some((r) => context.parentURL?.startsWith(r)) && /^\.\.?\/.*\.js$/.test(specifier)
      if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !ours) throw err
      return nextResolve(specifier.replace(/\.js$/, '.ts'), context)
    }
  }
})
