// scripts/check-workflows.mjs (in `npm run lint`): the workflow rules actionlint lacks, on the
// fixtures of __tests__/fixtures/check-workflows (see its README for where the rules come from),
// and on this repository's own workflows and the examples users copy.
import { expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const root = path.join(import.meta.dirname, '..', '..', '..')
const fixtures = path.join('__tests__', 'fixtures', 'check-workflows')

function check(...args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/check-workflows.mjs', ...args], {
    cwd: root,
    encoding: 'utf8'
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

it('passes a workflow that pins third parties, sets permissions and passes event text by env', () => {
  expect(check(path.join(fixtures, 'good.yml'))).toEqual({
    code: 0,
    stdout: 'check-workflows: 1 workflows, no problems\n',
    stderr: ''
  })
})

it('names each broken rule at its line', () => {
  const file = path.join(fixtures, 'bad.yml')
  const run = check(file)
  expect(run.code).toBe(1)
  expect(run.stderr.split('\n').filter(Boolean).sort()).toEqual(
    [
      `${file}:6:18: [permissions] job build: \`permissions: write-all\`: grant only what it needs`,
      `${file}:15:3: [permissions] job other has no \`permissions\` and the workflow sets none: the token gets the repository's default`,
      `${file}:16:11: [pinned-action] someone/workflows/.github/workflows/deploy.yml@main: pin the action to a full commit SHA (keep the tag in a comment)`,
      `${file}:8:15: [pinned-action] helm/kind-action@v1: pin the action to a full commit SHA (keep the tag in a comment)`,
      `${file}:9:15: [pinned-action] docker://alpine:3: pin the image by digest (@sha256:...)`,
      `${file}:10:14: [script-injection] \${{ github.event.pull_request.title }} in run: the text is pasted into the script: pass it in env: and use "$NAME"`,
      `${file}:14:15: [pinned-action] github/codeql-action/init@v4: pin the action to a full commit SHA (keep the tag in a comment)`,
      `${file}:13:19: [script-injection] \${{ github.head_ref }} in script: the text is pasted into the script: pass it in env: and use "$NAME"`
    ].sort()
  )
})

it("passes this repository's workflows and the examples users copy", () => {
  expect(check()).toMatchObject({ code: 0, stderr: '' })
})
