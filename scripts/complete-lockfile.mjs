// Completes package-lock.json with the platform-specific optional packages that the npm
// registry reachable from our machines does not serve (it answers 404 for, e.g., the android,
// darwin and win32 builds of @unrs/resolver-binding-*, which jest's resolver lists as optional
// dependencies). npm then leaves them out of the lock, and `npm ci` refuses the lock as "not in
// sync" with "Missing: <pkg> from lock file". The entries added here carry the package's os/cpu
// (as on the registry), so npm skips them on every other platform and never fetches them.
// Run after `npm install` changes the lock: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages
const platformOf = (name) => {
  const m =
    /-(android|darwin|freebsd|linux|openharmony|win32)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x)(?:-(gnueabihf|musleabihf|gnu|musl|eabi|msvc))?$/.exec(
      name
    )
  if (!m) return undefined
  const libc =
    m[3] === 'musl' || m[3] === 'musleabihf' ? ['musl'] : m[1] === 'linux' ? ['glibc'] : undefined
  return { os: [m[1]], cpu: [m[2]], ...(libc ? { libc } : {}) }
}
let added = 0
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `${path ? path + '/' : ''}node_modules/${dep}`
    if (packages[where] || packages[`node_modules/${dep}`]) continue
    const platform = platformOf(dep)
    if (!platform) continue
    packages[`node_modules/${dep}`] = {
      version,
      ...platform,
      dev: entry.dev,
      license: entry.license,
      optional: true
    }
    added++
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1))
)
lock.packages = sorted
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`complete-lockfile: added ${added} platform-specific optional entries`)
