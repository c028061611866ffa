import { describe, expect, it } from '@jest/globals'
import { renderPlanGraph } from '../../../src/report/mermaid.js'

describe('renderPlanGraph', () => {
  it('draws a subgraph per layer and an arrow per dependsOn edge (diamond)', () => {
    const plan = {
      layers: [['a'], ['b', 'c'], ['d']],
      nodes: [
        { name: 'a', dependsOn: [] },
        { name: 'b', dependsOn: ['a'] },
        { name: 'c', dependsOn: ['a'] },
        { name: 'd', dependsOn: ['b', 'c'] }
      ]
    }
    expect(renderPlanGraph(plan, new Set(['d']))).toBe(
      [
        'graph LR',
        '  subgraph layer1["Layer 1"]',
        '    m0["a"]',
        '  end',
        '  subgraph layer2["Layer 2"]',
        '    m1["b"]',
        '    m2["c"]',
        '  end',
        '  subgraph layer3["Layer 3"]',
        '    m3["d"]',
        '  end',
        '  m0 --> m1',
        '  m0 --> m2',
        '  m1 --> m3',
        '  m2 --> m3',
        '  classDef changed fill:#fff8c5,stroke:#9a6700,stroke-width:2px',
        '  class m3 changed',
        ''
      ].join('\n')
    )
  })

  it('links consecutive layers with dotted arrows when nothing uses dependsOn', () => {
    const plan = {
      layers: [['a'], ['b']],
      nodes: [
        { name: 'a', dependsOn: [] },
        { name: 'b', dependsOn: [] }
      ]
    }
    const graph = renderPlanGraph(plan, new Set())
    expect(graph).toContain('  layer1 -.-> layer2\n')
    expect(graph).not.toContain('classDef')
  })

  it('shows manifests outside every layer and escapes label text', () => {
    const plan = {
      layers: [['a']],
      nodes: [
        { name: 'a', dependsOn: [] },
        { name: 'x"#`\ny', dependsOn: ['a'] }
      ]
    }
    const graph = renderPlanGraph(plan, new Set())
    expect(graph).toContain('  m1["x#quot;#35;#96; y"]\n')
    expect(graph).toContain('  m0 --> m1\n')
  })
})
