// Security rules for GitHub Actions workflows that actionlint does not have (`npm run lint` runs
// this after scripts/actionlint.sh): node scripts/check-workflows.mjs [FILE_OR_DIR...]
// (default: .github/workflows and examples/workflows, the workflows users copy).
//
// - pinned-action: an action or reusable workflow is pinned to a full commit SHA, a docker://
//   image to a digest: a tag can be moved to other code after review. Exempt are actions/*
//   (the runner's own, which ci.yml follows by major tag), this action itself and a local
//   ./path; github/* is not exempt: github/codeql-action runs beside a write token.
// - permissions: the workflow sets `permissions` at its top, or every job sets its own, and
//   none is `write-all`: the GITHUB_TOKEN gets only what is written down.
// - script-injection: no `${{ github.event.* }}` or `${{ github.head_ref }}` (text anyone who
//   opens a pull request or an issue chooses) inside a `run:` script or actions/github-script's
//   `script`: the runner pastes it into the script before the shell reads it. Pass it through
//   `env:` and use "$VAR" instead.
// Prints `file:line:col: [rule] message` per problem and exits 1 when there is one.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml'

const FIRST_PARTY_OWNERS = new Set(['actions'])
const SELF = 'tazuna-action/tazuna-action'
const UNTRUSTED = /\$\{\{[^}]*\bgithub\s*\.\s*(event\s*\.|head_ref\b)[^}]*\}\}/

/** The problems of one workflow file's text, each with its position. */
export function checkWorkflow(file, text) {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter })
  const problems = []
  const at = (node, rule, message) => {
    const { line, col } = lineCounter.linePos(node?.range?.[0] ?? 0)
    problems.push(`${file}:${line}:${col}: [${rule}] ${message}`)
  }
  if (doc.errors.length > 0) {
    for (const error of doc.errors) at({ range: error.pos }, 'yaml', error.message)
    return problems
  }
  const root = doc.contents
  if (!isMap(root)) return problems
  const jobs = root.get('jobs', true)
  checkPermissions(root, jobs, at)
  for (const job of isMap(jobs) ? jobs.items : []) {
    if (!isMap(job.value)) continue
    const uses = job.value.get('uses', true)
    if (isScalar(uses)) checkUses(uses, at)
    const steps = job.value.get('steps', true)
    for (const step of isSeq(steps) ? steps.items : []) {
      if (!isMap(step)) continue
      const stepUses = step.get('uses', true)
      if (isScalar(stepUses)) checkUses(stepUses, at)
      checkInjection(step.get('run', true), 'run:', at)
      if (isScalar(stepUses) && String(stepUses.value).startsWith('actions/github-script@')) {
        const withMap = step.get('with', true)
        if (isMap(withMap)) checkInjection(withMap.get('script', true), 'script:', at)
      }
    }
  }
  return problems
}

function checkPermissions(root, jobs, at) {
  const top = root.get('permissions', true)
  if (isScalar(top) && top.value === 'write-all') {
    at(top, 'permissions', '`permissions: write-all`: grant each scope the workflow needs instead')
  }
  for (const job of isMap(jobs) ? jobs.items : []) {
    if (!isMap(job.value)) continue
    const own = job.value.get('permissions', true)
    if (isScalar(own) && own.value === 'write-all') {
      at(own, 'permissions', `job ${job.key}: \`permissions: write-all\`: grant only what it needs`)
    }
    if (top === undefined && own === undefined) {
      at(
        job.key,
        'permissions',
        `job ${job.key} has no \`permissions\` and the workflow sets none: the token gets the repository's default`
      )
    }
  }
}

function checkUses(node, at) {
  const uses = String(node.value)
  if (uses.startsWith('./')) return
  if (uses.startsWith('docker://')) {
    if (!/@sha256:[0-9a-f]{64}$/.test(uses))
      at(node, 'pinned-action', `${uses}: pin the image by digest (@sha256:...)`)
    return
  }
  const [name, ref = ''] = uses.split('@')
  const [owner = '', repo = ''] = name.split('/')
  if (FIRST_PARTY_OWNERS.has(owner) || `${owner}/${repo}` === SELF) return
  if (!/^[0-9a-f]{40}$/.test(ref)) {
    at(
      node,
      'pinned-action',
      `${uses}: pin the action to a full commit SHA (keep the tag in a comment)`
    )
  }
}

function checkInjection(node, where, at) {
  if (!isScalar(node) || typeof node.value !== 'string') return
  const match = UNTRUSTED.exec(node.value)
  if (match) {
    at(
      node,
      'script-injection',
      `${match[0]} in ${where} the text is pasted into the script: pass it in env: and use "$NAME"`
    )
  }
}

/** The .yml/.yaml files of the arguments (directories listed one level deep). */
function workflowFiles(args) {
  return args.flatMap((arg) => {
    let stat
    try {
      stat = statSync(arg)
    } catch {
      return []
    }
    if (!stat.isDirectory()) return [arg]
    return readdirSync(arg)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => path.join(arg, f))
  })
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const args = process.argv.slice(2)
  const files = workflowFiles(args.length > 0 ? args : ['.github/workflows', 'examples/workflows'])
  const problems = files.flatMap((file) => checkWorkflow(file, readFileSync(file, 'utf8')))
  for (const problem of problems) console.error(problem)
  if (problems.length > 0) process.exitCode = 1
  else console.log(`check-workflows: ${files.length} workflows, no problems`)
}
