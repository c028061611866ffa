// Go's text/tabwriter with the settings of Tazuna's `chart list`, against the Go oracle's
// committed answers (__tests__/oracle/tabwriter/README.md).
import { expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { tabwriterText } from '../../../src/go/tabwriter.js'

const answers = JSON.parse(
  readFileSync(new URL('../../oracle/tabwriter/expected.json', import.meta.url), 'utf8')
) as { input: string; output: string }[]

it.each(answers.map((a) => [JSON.stringify(a.input), a] as const))(
  'writes %s as Go does',
  (_, { input, output }) => {
    expect(tabwriterText(input)).toBe(output)
  }
)
