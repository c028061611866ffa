// `secret-to-genesissecret` beside the real Tazuna CLI (TAZUNA_BIN), against the same Secrets on
// the test API server (docs/compatibility.md#secret-to-genesissecret). 1Password cannot be
// reached from the test machines: both tools call a RECORDED STAND-IN for `op`
// (__tests__/fixtures/secret-to-genesissecret/op-stand-in.mjs, on PATH as `op`) that accepts only
// the calls upstream's pkg/op/command_builder.go makes, in order, and logs what it receives.
//
// Compared, in --dry-run and in a real run: exit code and stdout byte for byte, the GenesisSecret
// files byte for byte (and their modes), and the op calls — the same argument lists in the same
// order, the same item JSON on stdin. Where Tazuna's output is not deterministic: it ranges over
// a Secret's data map to build the item's fields, so an item of two or more keys lists its fields
// in Go's map order, which varies from run to run; those items are compared with their data
// fields in label order (ours are in byte order, held by
// integration/cluster/secret-to-genesissecret.test.ts), the items of one key byte for byte. The
// log lines on stderr are not compared (Tazuna's slog text, ours `info: ...`). Refused flags:
// the same exit code and the same `error: ` line (Tazuna logs `list secrets` first and
// cockroachdb's %+v adds a stack after it).
// Skipped, with the reason in the suite title, without TAZUNA_BIN.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runCliInProcess, runCliProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, adminSession, namespace, uniqueName } from '../../support/cluster.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

if (tazunaSkipReason !== '') {
  process.stderr.write(`interop: secret-to-genesissecret${tazunaSkipReason}\n`)
}

const standIn = path.join(
  import.meta.dirname,
  '..',
  '..',
  'fixtures',
  'secret-to-genesissecret',
  'op-stand-in.mjs'
)

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64')

/** One recorded call: the arguments upstream's command builder makes, op's answer. */
interface Call {
  args: string[]
  anyStdin?: true
  stdout: string
}

/** What the stand-in received. */
interface Received {
  args: string[]
  stdin: string
}

const VAULT_JSON = '{"id":"vlt-7","name":"Infra","content_version":12,"type":"USER_CREATED"}\n'

const create = (title: string, dryRun: boolean): Call => ({
  args: [
    'item',
    'create',
    '--title',
    title,
    '--category',
    'API Credential',
    ...(dryRun ? ['--dry-run'] : []),
    '--vault',
    'Infra',
    '-'
  ],
  anyStdin: true,
  stdout: `{"id":"new-${title}"}\n`
})

/** A selection of Secrets, the flags that select them and the calls op must receive. */
interface Selection {
  name: string
  flags: (dumpDir: string) => string[]
  /** Secret names the run writes files for, in list order (the API server's name order). */
  selected: string[]
  calls: (dryRun: boolean) => Call[]
}

let admin: Awaited<ReturnType<typeof adminSession>>
let work: string
let bin: string
const originalPath = process.env.PATH
let nsLabelled: string
let nsPlain: string

const selections: Selection[] = [
  {
    // Label selector (two keys), name regex, a note; one Secret's item exists already.
    name: 'by label and name',
    flags: (dumpDir) => [
      '--namespace',
      nsLabelled,
      '--label-selector',
      'team=payments,tier=backend',
      '--name-regex=-(credentials|tls|token|key|value)$',
      '--vault',
      'Infra',
      '--op-host',
      'my.1password.com',
      '--note',
      'moved "from" the <cluster>',
      // Go's filepath.Join cleans the doubled separator and the `.`.
      '--dump-dir',
      `${dumpDir}//./`
    ],
    selected: [
      'already-credentials',
      'api-token',
      'bin-key',
      'db-credentials',
      'empty-value',
      'web-tls'
    ],
    calls: (dryRun) => [
      { args: ['--format', 'json', 'vault', 'get', 'Infra'], stdout: VAULT_JSON },
      {
        args: ['--format', 'json', 'item', 'list', '--vault', 'Infra'],
        stdout: '[{"id":"itm-9","title":"already-credentials","vault":{"id":"vlt-7"}}]\n'
      },
      ...['api-token', 'bin-key', 'db-credentials', 'empty-value', 'web-tls'].map((t) =>
        create(t, dryRun)
      )
    ]
  },
  {
    // A whole namespace: a Secret without labels, one without data; no note.
    name: 'a whole namespace',
    flags: (dumpDir) => [
      '--namespace',
      nsPlain,
      '--vault',
      'Infra',
      '--op-host',
      'team.1password.com',
      '--dump-dir',
      dumpDir
    ],
    selected: ['no-data', 'plain'],
    calls: (dryRun) => [
      { args: ['--format', 'json', 'vault', 'get', 'Infra'], stdout: VAULT_JSON },
      { args: ['--format', 'json', 'item', 'list', '--vault', 'Infra'], stdout: '[]\n' },
      create('no-data', dryRun),
      create('plain', dryRun)
    ]
  }
]

beforeAll(async () => {
  admin = await adminSession()
  nsLabelled = uniqueName('s2g-interop')
  nsPlain = uniqueName('s2g-interop-plain')
  await admin.cluster.apply(namespace(nsLabelled))
  await admin.cluster.apply(namespace(nsPlain))
  const secret = (
    ns: string,
    name: string,
    labels: Record<string, string> | undefined,
    data: Record<string, string> | undefined,
    type = 'Opaque'
  ) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    type,
    ...(data ? { data } : {})
  })
  const team = { team: 'payments', tier: 'backend' }
  for (const s of [
    secret(nsLabelled, 'already-credentials', team, { token: b64('t0ken') }),
    // Go's json.Marshal escapes <, >, &, U+2028 and U+2029; UTF-8 passes as it is.
    secret(nsLabelled, 'api-token', team, { token: b64('to<k>&en\u2028é\u2029"\\') }),
    // Bytes that are not UTF-8: Go writes U+FFFD for each.
    secret(
      nsLabelled,
      'bin-key',
      { ...team, kind: 'binary' },
      {
        'key.bin': b64(Buffer.from([0x2d, 0xff, 0xe2, 0x82, 0x41, 0x0a, 0xc0, 0xaf]))
      }
    ),
    secret(
      nsLabelled,
      'db-credentials',
      { ...team, app: 'db' },
      { username: b64('alice'), password: b64('s3cr3t'), DB_URL: b64('postgres://db') }
    ),
    // An empty value: Go's omitempty leaves the field's value out.
    secret(nsLabelled, 'empty-value', team, { blank: '' }),
    secret(
      nsLabelled,
      'web-tls',
      team,
      { 'tls.crt': b64('CERT'), 'tls.key': b64('KEY') },
      'kubernetes.io/tls'
    ),
    secret(nsLabelled, 'db-config', team, { host: b64('db.internal') }),
    secret(nsLabelled, 'other-credentials', { team: 'payments' }, { token: b64('other') }),
    secret(nsPlain, 'plain', undefined, { a: b64('x') }),
    secret(nsPlain, 'no-data', { app: 'empty' }, undefined)
  ])
    await admin.cluster.apply(s)
  work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-s2g-interop-'))
  bin = path.join(work, 'bin')
  mkdirSync(bin)
  // Our command runs in-process: its `op` is found on this process's PATH.
  process.env.PATH = `${bin}${path.delimiter}${originalPath}`
}, 60_000)

afterAll(async () => {
  process.env.PATH = originalPath
  if (admin) {
    for (const ns of [nsLabelled, nsPlain]) {
      await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns })
    }
    admin.close()
  }
  if (work) rmSync(work, { recursive: true, force: true })
})

/** What one tool did: its result, the op calls received and the files written. */
interface Run {
  code: number
  stdout: string
  calls: Received[]
  files: Record<string, { text: string; mode: number }>
}

/** Puts `op` on PATH with `calls` as its script and a fresh log; returns the log's path. */
function useScript(calls: Call[], tag: string): string {
  const dir = mkdtempSync(path.join(work, `${tag}-`))
  const script = path.join(dir, 'op-script.json')
  const log = path.join(dir, 'op-calls.jsonl')
  writeFileSync(script, JSON.stringify(calls))
  writeFileSync(
    path.join(bin, 'op'),
    `#!/bin/sh\nOP_STAND_IN_SCRIPT='${script}' OP_STAND_IN_LOG='${log}' exec '${process.execPath}' '${standIn}' "$@"\n`,
    { mode: 0o755 }
  )
  return log
}

const tools = {
  tazuna: (args: string[]): Promise<CliResult> =>
    runCliProcess(tazunaBin ?? 'tazuna', args, {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: adminKubeconfig() }
    }),
  ours: (args: string[]): Promise<CliResult> =>
    runCliInProcess(args, { KUBECONFIG: adminKubeconfig() })
}

/** Runs one tool on a selection with a fresh, empty dump directory (the same path for both). */
async function runTool(
  tool: keyof typeof tools,
  selection: Selection,
  dryRun: boolean
): Promise<Run> {
  const dumpDir = path.join(work, `dump-${selection.name.replaceAll(' ', '-')}`)
  rmSync(dumpDir, { recursive: true, force: true })
  mkdirSync(dumpDir)
  const log = useScript(selection.calls(dryRun), tool)
  const result = await tools[tool]([
    'secret-to-genesissecret',
    ...selection.flags(dumpDir),
    ...(dryRun ? ['--dry-run'] : [])
  ])
  const files: Run['files'] = {}
  for (const f of readdirSync(dumpDir).sort()) {
    const file = path.join(dumpDir, f)
    files[f] = { text: readFileSync(file, 'utf8'), mode: statSync(file).mode & 0o777 }
  }
  let calls: Received[] = []
  try {
    calls = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Received)
  } catch {
    // No call reached op.
  }
  return {
    code: result.code,
    stdout: result.stdout,
    calls,
    files
  }
}

/** The item JSON with its data fields in label order, the notesPlain field last (as written). */
function fieldsInLabelOrder(stdin: string): unknown {
  const item = JSON.parse(stdin) as { fields?: { label?: string }[] }
  const fields = item.fields ?? []
  const notes = fields.filter((f) => f.label === 'notesPlain')
  const data = fields.filter((f) => f.label !== 'notesPlain')
  data.sort((a, b) => Buffer.compare(Buffer.from(a.label ?? ''), Buffer.from(b.label ?? '')))
  return { ...item, fields: [...data, ...notes] }
}

/** The calls as compared: stdin byte for byte for items of one data key, else in label order. */
function comparableCalls(calls: readonly Received[]): unknown[] {
  return calls.map(({ args, stdin }) => {
    if (stdin === '') return { args }
    const fields = (JSON.parse(stdin) as { fields?: unknown[] }).fields ?? []
    return fields.length <= 2 ? { args, stdin } : { args, item: fieldsInLabelOrder(stdin) }
  })
}

describeWithTazuna(`secret-to-genesissecret beside the Tazuna CLI${tazunaSkipReason}`, () => {
  describe.each(selections.map((s) => [s.name, s] as const))('Secrets %s', (_, selection) => {
    it.each([
      ['--dry-run', true],
      ['a real run', false]
    ])('with %s: the same stdout, files and op calls as Tazuna', async (_label, dryRun) => {
      const theirs = await runTool('tazuna', selection, dryRun)
      const ours = await runTool('ours', selection, dryRun)
      // Each did what the selection says (so that two equal failures do not pass).
      expect(theirs.code).toBe(0)
      expect(theirs.calls.map((c) => c.args)).toEqual(selection.calls(dryRun).map((c) => c.args))
      expect(Object.keys(theirs.files)).toEqual(
        dryRun ? [] : selection.selected.map((n) => `${n}.yaml`)
      )
      expect({
        code: ours.code,
        stdout: ours.stdout,
        files: ours.files,
        calls: comparableCalls(ours.calls)
      }).toEqual({
        code: theirs.code,
        stdout: theirs.stdout,
        files: theirs.files,
        calls: comparableCalls(theirs.calls)
      })
    })
  })

  it('an item of several keys: the same fields, Tazuna’s in Go’s map order, ours in byte order', async () => {
    const selection = selections[0]!
    const fieldsOf = async (tool: keyof typeof tools) => {
      const run = await runTool(tool, selection, true)
      const stdin = run.calls.find((c) => c.args.includes('db-credentials'))?.stdin ?? '{}'
      return ((JSON.parse(stdin) as { fields?: { label: string }[] }).fields ?? []).map(
        (f) => f.label
      )
    }
    const [theirs, ours] = [await fieldsOf('tazuna'), await fieldsOf('ours')]
    expect(ours).toEqual(['DB_URL', 'password', 'username', 'notesPlain'])
    expect(theirs.at(-1)).toBe('notesPlain')
    expect([...theirs].sort()).toEqual([...ours].sort())
  })

  it.each([
    [['--vault', 'Infra']],
    [['--op-host', 'h', '--vault', 'Infra', '--label-selector', 'team']],
    [['--op-host', 'h', '--vault', 'Infra', '--name-regex', '([']],
    [['--op-host', 'h']],
    [['--op-host', 'h', '--vault', 'In/fra']],
    // Letters of any script pass upstream's allow list; the `/` does not.
    [['--op-host', 'h', '--vault', 'サンプル/x']]
  ])('refuses %j with Tazuna’s message and exit code, calling no op', async (flags) => {
    const run = async (tool: keyof typeof tools) => {
      const log = useScript(
        [{ args: ['--format', 'json', 'vault', 'get', 'Infra'], stdout: VAULT_JSON }],
        tool
      )
      const result = await tools[tool]([
        'secret-to-genesissecret',
        '--namespace',
        nsPlain,
        '--dump-dir',
        work,
        ...flags
      ])
      let called = true
      try {
        readFileSync(log)
      } catch {
        called = false
      }
      return {
        code: result.code,
        stdout: result.stdout,
        error: result.stderr.split('\n').find((l) => l.startsWith('error: ')),
        called
      }
    }
    const theirs = await run('tazuna')
    const ours = await run('ours')
    expect(theirs.code).toBe(1)
    expect(ours).toEqual(theirs)
  })
})
