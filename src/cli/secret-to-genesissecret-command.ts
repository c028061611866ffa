/**
 * `secret-to-genesissecret` (docs/compatibility.md#secret-to-genesissecret): existing Secrets of a
 * namespace (label selector, name regex) become 1Password items, through the `op` CLI as Tazuna
 * calls it, and GenesisSecret files in `--dump-dir`. `--dry-run` passes `--dry-run` to
 * `op item create` and writes no file. Secret values go only to `op item create`'s stdin; they
 * are redacted from every message.
 */
import type { JsonObject } from '../go/json-value.js'
import { compileGoRegexp } from '../go/regexp.js'
import { marshalSecretYaml } from '../go/yaml-emitter.js'
import { createSecretRegistry } from '../render/secrets.js'
import { runTool } from '../render/tools.js'
import {
  dumpPathOf,
  genesisSecretOf,
  itemCreateArgs,
  itemListArgs,
  labelSelectorOf,
  opIdentifierProblem,
  parseItemTitles,
  parseVault,
  vaultGetArgs,
  vaultItemJson,
  type ListedSecret
} from '../secret-to-genesissecret/conversion.js'
import { stderrLog, type CliCommand, type CommandContext } from './command.js'

/** The flags, checked before any request: Tazuna's required `--op-host`, selector, regex, vault. */
interface Request {
  namespace: string
  labelSelector?: string
  nameRegex?: RegExp
  vault: string
  opHost: string
  note: string
  dumpDir: string
  dryRun: boolean
}

function requestOf(options: CommandContext['options']): Request {
  const text = (name: string, fallback = ''): string => {
    const value = options[name]
    return typeof value === 'string' ? value : fallback
  }
  const opHost = text('op-host')
  if (options['op-host'] === undefined) throw new Error('required flag(s) "op-host" not set')
  const selector = text('label-selector')
  const regex = text('name-regex')
  const vault = text('vault')
  const problem = opIdentifierProblem('vault', vault)
  if (problem !== undefined) throw new Error(problem)
  return {
    namespace: text('namespace', 'default'),
    ...(selector === '' ? {} : { labelSelector: labelSelectorOf(selector) }),
    ...(regex === '' ? {} : { nameRegex: compileGoRegexp(regex) }),
    vault,
    opHost,
    note: text('note'),
    dumpDir: text('dump-dir', '.'),
    dryRun: options['dry-run'] === true
  }
}

/** A listed Secret object as the command reads it (data decoded from base64). */
function listedSecretOf(object: JsonObject): ListedSecret {
  const metadata = (object.metadata ?? {}) as JsonObject
  const data = new Map<string, Uint8Array>()
  for (const [key, value] of Object.entries((object.data ?? {}) as JsonObject)) {
    data.set(key, typeof value === 'string' ? Buffer.from(value, 'base64') : new Uint8Array())
  }
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    labels: { ...((metadata.labels ?? {}) as Record<string, string>) },
    type: typeof object.type === 'string' ? object.type : '',
    data
  }
}

export const secretToGenesisSecretCommand: CliCommand = {
  name: 'secret-to-genesissecret',
  summary:
    'Save existing cluster Secrets to 1Password (op CLI) and write the corresponding GenesisSecret files',
  options: {
    'label-selector': { type: 'string' },
    'name-regex': { type: 'string' },
    vault: { type: 'string' },
    namespace: { type: 'string', default: 'default' },
    'dry-run': { type: 'boolean', default: false },
    'dump-dir': { type: 'string', default: '.' },
    note: { type: 'string' },
    'op-host': { type: 'string' }
  },
  async run(context) {
    const { io, engine, args } = context
    if (args.length > 0) {
      throw new Error(
        `secret-to-genesissecret takes no arguments (got ${JSON.stringify(args.join(' '))})`
      )
    }
    const request = requestOf(context.options)
    const log = stderrLog(io)
    log.info('list secrets')
    const listed = await engine.listObjects(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        ...(request.namespace === '' ? {} : { namespace: request.namespace })
      },
      request.labelSelector === undefined ? {} : { labelSelector: request.labelSelector }
    )
    const secrets = listed
      .map(listedSecretOf)
      .filter((s) => request.nameRegex === undefined || request.nameRegex.test(s.name))
    const redaction = createSecretRegistry()
    for (const s of secrets)
      for (const v of s.data.values()) redaction.registerSecret(Buffer.from(v).toString('utf8'))
    const op = (argv: string[], input?: string) =>
      runTool(
        { runner: context.runner, tool: 'op', redact: redaction.redact },
        argv,
        input === undefined ? {} : { input }
      )
    log.info(`get the vault that the vault items stores: ${request.vault}`)
    const vault = parseVault(await op(vaultGetArgs(request.vault)))
    for (const s of secrets) {
      const problem = opIdentifierProblem('item', s.name)
      if (problem !== undefined) throw new Error(problem)
    }
    const existing = new Set(parseItemTitles(await op(itemListArgs(request.vault))))
    for (const secret of secrets) {
      if (existing.has(secret.name)) {
        log.info(`item already exists in vault: ${secret.name} (vault ${request.vault})`)
        continue
      }
      const argv = itemCreateArgs(secret.name, request.vault, request.dryRun)
      log.info(`execute command: op ${argv.join(' ')}`)
      await op(argv, vaultItemJson(secret, vault, request.note))
    }
    for (const secret of secrets) {
      const file = dumpPathOf(request.dumpDir, secret.name)
      const yaml = marshalSecretYaml(genesisSecretOf(secret, request.opHost, request.vault))
      if (request.dryRun) io.stdout(`DRYRUN: generate GenesisSecret into ${file}\n`)
      else await context.writeText(file, yaml)
    }
    return 0
  }
}
