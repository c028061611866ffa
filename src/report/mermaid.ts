/**
 * The apply plan as a Mermaid flowchart: one subgraph per layer, an arrow per dependsOn edge
 * (dependency -> dependent), changed manifests highlighted. Without any dependsOn Tazuna
 * applies one manifest per layer in declaration order (docs/compatibility.md#layers); dotted arrows
 * show that.
 */
import type { ApplyPlan } from './model.js'

/** Mermaid source (without the fence) for the plan; node ids never depend on user text. */
export function renderPlanGraph(plan: ApplyPlan, changed: ReadonlySet<string>): string {
  const ids = new Map<string, string>()
  const idOf = (name: string): string => {
    let id = ids.get(name)
    if (id === undefined) {
      id = `m${ids.size}`
      ids.set(name, id)
    }
    return id
  }
  const lines = ['graph LR']
  plan.layers.forEach((layer, index) => {
    lines.push(`  subgraph layer${index + 1}["Layer ${index + 1}"]`)
    for (const name of layer) lines.push(`    ${idOf(name)}["${label(name)}"]`)
    lines.push('  end')
  })
  for (const node of plan.nodes) {
    if (!ids.has(node.name)) lines.push(`  ${idOf(node.name)}["${label(node.name)}"]`)
  }
  const edges = dependencyEdges(plan, ids)
  if (edges.length > 0) {
    for (const [from, to] of edges) lines.push(`  ${from} --> ${to}`)
  } else {
    for (let i = 1; i < plan.layers.length; i++) {
      lines.push(`  layer${i} -.-> layer${i + 1}`)
    }
  }
  const highlighted = [...ids].filter(([name]) => changed.has(name)).map(([, id]) => id)
  if (highlighted.length > 0) {
    lines.push('  classDef changed fill:#fff8c5,stroke:#9a6700,stroke-width:2px')
    lines.push(`  class ${highlighted.join(',')} changed`)
  }
  return `${lines.join('\n')}\n`
}

const dependencyEdges = (plan: ApplyPlan, ids: ReadonlyMap<string, string>): [string, string][] =>
  plan.nodes.flatMap((node) =>
    node.dependsOn
      .filter((dep) => ids.has(dep) && ids.has(node.name))
      .map((dep): [string, string] => [ids.get(dep)!, ids.get(node.name)!])
  )

// Mermaid labels are quoted strings; a double quote would end them, and `#...;` is Mermaid's
// entity syntax, so both are written as entities. Backticks would switch to Markdown strings.
const label = (name: string): string =>
  name
    .replace(/[\r\n]+/g, ' ')
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/`/g, '#96;')
