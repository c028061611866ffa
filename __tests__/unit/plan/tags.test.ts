import { describe, expect, it } from '@jest/globals'
import { selectedByTags } from '../../../src/plan/tags.js'

describe('selectedByTags (docs/compatibility.md#tags)', () => {
  it.each([
    ['an empty filter selects everything', ['infra'], [], true],
    ['an empty filter selects an untagged manifest', undefined, [], true],
    ['one matching tag selects', ['infra', 'db'], ['db'], true],
    ['any of several filter tags selects (OR)', ['app'], ['infra', 'app'], true],
    ['no common tag skips', ['app'], ['infra'], false],
    ['an untagged manifest is skipped by a filter', undefined, ['infra'], false],
    ['tags match exactly, case-sensitively', ['Infra'], ['infra'], false]
  ])('%s', (_name, manifestTags, filter, expected) => {
    expect(selectedByTags(manifestTags, filter)).toBe(expected)
  })
})
