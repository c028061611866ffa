// Jest globalSetup of the unit project: opens the run's temporary root (run-root.ts).
// Jest loads this file with Node's own loader: see __tests__/cluster/ts-resolve.mjs.
export default async function globalSetup(): Promise<void> {
  await import(new URL('../cluster/ts-resolve.mjs', import.meta.url).href)
  const { openRunRoot } = await import('./run-root.js')
  openRunRoot()
}
