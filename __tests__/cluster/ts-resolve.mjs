// Lets Node run this folder's TypeScript directly (scripts/cluster.sh): the sources import
// `./x.js` as NodeNext requires, while only `./x.ts` exists. Node strips the types itself.
import { registerHooks } from 'node:module'

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (err) {
      if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\.\.?\/.*\.js$/.test(specifier)) throw err
      return nextResolve(specifier.replace(/\.js$/, '.ts'), context)
    }
  }
})
