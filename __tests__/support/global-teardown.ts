// Jest globalTeardown of the unit project: leaves the run's temporary root (run-root.ts).
export default function globalTeardown(): void {
  globalThis.__tazunaTestRunRootRelease?.()
}
