/**
 * Dependency layers of `apply` (docs/compatibility.md#layers, upstream `ResolveDependencyOrder`).
 * Manifests of one layer do not depend on each other and may run concurrently; a layer starts after
 * the previous one finished.
 */

/** What layering needs of a manifest. */
export interface LayerInput {
  name: string
  dependsOn?: readonly string[]
}

/** Why the dependsOn graph cannot be layered; `manifests` names the manifests involved. */
export class LayerError extends Error {
  override name = 'LayerError'
  constructor(
    message: string,
    readonly reason: 'self-reference' | 'unknown-manifest' | 'cycle',
    readonly manifests: readonly string[]
  ) {
    super(message)
  }
}

/**
 * Orders manifests into layers. Without any `dependsOn` every manifest is its own layer, in
 * declaration order (the pre-DAG sequential behaviour). Otherwise each Kahn round takes every
 * manifest whose dependencies are done, in declaration order. Names index last-wins on
 * duplicates; unnamed manifests cannot be depended on. Throws LayerError for a self reference,
 * an unknown name (first one found, in declaration order) or a cycle, naming the manifests on
 * the cycle (`a -> b -> a`).
 */
export function resolveLayers<M extends LayerInput>(manifests: readonly M[]): M[][] {
  if (!manifests.some((m) => (m.dependsOn?.length ?? 0) > 0)) return manifests.map((m) => [m])
  const dependencies = dependencyIndexes(manifests)
  const done = new Set<number>()
  const layers: M[][] = []
  while (done.size < manifests.length) {
    const ready = manifests
      .map((_, i) => i)
      .filter((i) => !done.has(i) && (dependencies[i] ?? []).every((d) => done.has(d)))
    if (ready.length === 0) throw cycleError(manifests, dependencies, done)
    for (const i of ready) done.add(i)
    layers.push(ready.map((i) => manifests[i] as M))
  }
  return layers
}

/** For each manifest, the indexes of the manifests it depends on. */
function dependencyIndexes(manifests: readonly LayerInput[]): number[][] {
  const indexByName = new Map<string, number>()
  manifests.forEach((m, i) => {
    if (m.name !== '') indexByName.set(m.name, i)
  })
  return manifests.map((m) =>
    (m.dependsOn ?? []).map((dependency) => {
      if (dependency === m.name) {
        throw new LayerError(`manifest ${quote(m.name)} depends on itself`, 'self-reference', [
          m.name
        ])
      }
      const index = indexByName.get(dependency)
      if (index === undefined) {
        throw new LayerError(
          `manifest ${quote(m.name)} dependsOn references unknown manifest ${quote(dependency)}`,
          'unknown-manifest',
          [m.name, dependency]
        )
      }
      return index
    })
  )
}

/**
 * Every manifest left over has a left-over dependency, so following those from the first one
 * must come back to a manifest already seen: that loop is the cycle to report.
 */
function cycleError(
  manifests: readonly LayerInput[],
  dependencies: readonly number[][],
  done: ReadonlySet<number>
): LayerError {
  const path: number[] = []
  let current = manifests.findIndex((_, i) => !done.has(i))
  while (!path.includes(current)) {
    path.push(current)
    current = (dependencies[current] ?? []).find((d) => !done.has(d)) ?? current
  }
  const cycle = [...path.slice(path.indexOf(current)), current].map((i) => manifests[i]?.name ?? '')
  return new LayerError(
    `circular dependency detected in manifest dependsOn graph: ${cycle.join(' -> ')}`,
    'cycle',
    cycle.slice(0, -1)
  )
}

function quote(s: string): string {
  return JSON.stringify(s)
}
