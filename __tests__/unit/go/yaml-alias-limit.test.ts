// go-yaml v2's alias limit (docs/reliability.md#hostile-input): a document is refused with
// `document contains excessive aliasing` once decodes inside aliases pass a ratio of all
// decodes. Verdicts recorded from sigs.k8s.io/yaml v1.6.0 by __tests__/oracle/alias (see its
// README), including both sides of a threshold (145 vs 150 reuses of a 300-key anchor).
import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../../src/errors.js'
import { parseYamlDocuments } from '../../../src/go/yaml.js'

/** `levels` anchors, each a sequence of `width` aliases of the previous one. */
function bomb(levels: number, width: number): string {
  const lines = ['l0: &l0 [x, y]']
  for (let i = 1; i <= levels; i++) {
    lines.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(',')}]`)
  }
  return `${lines.join('\n')}\n`
}

/** One anchored flow mapping of `size` keys, aliased by `n` keys. */
function reuse(n: number, size: number): string {
  const keys = Array.from({ length: size }, (_, i) => `k${i}: v${i}`).join(', ')
  const lines = [`base: &b {${keys}}`]
  for (let i = 0; i < n; i++) lines.push(`u${i}: *b`)
  return `${lines.join('\n')}\n`
}

const decode = (text: string): unknown => parseYamlDocuments(text, 'values.yaml')[0]?.value

describe('excessive aliasing, as go-yaml v2 decides it', () => {
  it.each([
    ['a 2-level bomb of width 10', bomb(2, 10)],
    ['a 3-level bomb of width 9', bomb(3, 9)],
    ['10 reuses of a 10-key anchor', reuse(10, 10)],
    ['100 reuses of a 10-key anchor', reuse(100, 10)],
    ['1000 reuses of a 1-key anchor', reuse(1000, 1)],
    ['145 reuses of a 300-key anchor', reuse(145, 300)]
  ])('accepts %s (go-yaml: ok)', (_, text) => {
    expect(decode(text)).toBeDefined()
  })

  it.each([
    ['a 4-level bomb of width 9', bomb(4, 9)],
    ['a 7-level bomb of width 9', bomb(7, 9)],
    ['a 9-level bomb of width 9 (387 million nodes)', bomb(9, 9)],
    ['150 reuses of a 300-key anchor', reuse(150, 300)]
  ])('refuses %s (go-yaml: excessive aliasing)', (_, text) => {
    let error: unknown
    try {
      decode(text)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toMatch(
      /^values\.yaml:\d+: .*document contains excessive aliasing/
    )
  })
})
