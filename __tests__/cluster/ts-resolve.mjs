// Lets Node itself run this folder's TypeScript: sources import `./x.js` as NodeNext
// requires, but only `./x.ts` exists, and Node's type stripping does not map one to the
// other. Needed by scripts/cluster.sh (`node --import`) and by the jest global setup and
// teardown, which Jest 30 on Node 24 loads natively rather than through ts-jest (in a
// "type": "module" package its require hook defers to Node's ESM loader).
// Only relative imports made from files under __tests__/ are touched.
import { registerHooks } from 'node:module'

const here = new URL('..', import.meta.url).href

if (!globalThis.__tazunaClusterTsResolve) {
  globalThis.__tazunaClusterTsResolve = true
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context)
      } catch (err) {
        const ours = context.parentURL?.startsWith(here) && /^\.\.?\/.*\.js$/.test(specifier)
        if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !ours) throw err
        return nextResolve(specifier.replace(/\.js$/, '.ts'), context)
      }
    }
  })
}
