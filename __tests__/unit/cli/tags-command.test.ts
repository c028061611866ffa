// `tags` (docs/compatibility.md#tags-command). Expected values are derived from upstream's
// source: cmd/tags.go prints `fmt.Printf("%s:\n", tag)` then `fmt.Printf("- %s\n", name)` per
// name; pkg/runner/tags.go (ListTags) skips manifests without a name and appends names in
// declaration order; pkg/runner/tags_test.go expects {"nginx": ["kustomize deployment"],
// "secret": ["test secret"]} for its testdata/include and {"tag1": ["manifest1"]} for one manifest.
// The tag order is ours (byte order, as upstream's documentation describes the output): the
// Tazuna CLI ranges over a Go map and prints its tags in an order that varies from run to run.
// Each tag's block (the third to sixth cases) is what the Tazuna CLI binary prints,
// `tazuna tags -f <file>`.
import { describe, expect, it } from '@jest/globals'
import { renderTagsText, tagsOf } from '../../../src/cli/tags-command.js'

const m = (name: string, tags: string[]) => ({ name, tags })

describe('tagsOf and renderTagsText', () => {
  it.each([
    ['one manifest (upstream ListTags test)', [m('manifest1', ['tag1'])], 'tag1:\n- manifest1\n'],
    [
      'upstream testdata/include, after includes',
      [m('kustomize deployment', ['nginx']), m('test secret', ['secret'])],
      'nginx:\n- kustomize deployment\nsecret:\n- test secret\n'
    ],
    [
      'names in declaration order under each tag, tags in byte order',
      [m('web', ['frontend', 'all']), m('api', ['backend', 'all']), m('Zed', ['Z'])],
      'Z:\n- Zed\nall:\n- web\n- api\nbackend:\n- api\nfrontend:\n- web\n'
    ],
    ['unnamed manifests left out', [m('', ['x']), m('a', ['x'])], 'x:\n- a\n'],
    ['a tag repeated in one manifest repeats its name', [m('a', ['x', 'x'])], 'x:\n- a\n- a\n'],
    ['nothing without tags', [m('a', [])], '']
  ])('%s', (_, manifests, expected) => {
    expect(renderTagsText(tagsOf(manifests))).toBe(expected)
  })
})
