/**
 * 1Password through the `op` CLI, as Tazuna's built-in `default-op` provider and helmfile vars
 * `from: op` use it (docs/compatibility.md#helmfile step 1, docs/compatibility.md#genesissecret):
 * `op --format json item get --vault <vault> <item>`. The CLI authenticates from its own
 * environment (OP_SERVICE_ACCOUNT_TOKEN or a signed-in session); nothing here sees a token. Field
 * values are secrets: callers register every value they use, and the item JSON never reaches a
 * message.
 */
import type { CommandRunner } from '../ports.js'
import { runTool } from '../tools.js'

/** One entry of the item's `fields`. `value` is "" for fields without one. */
export interface OpField {
  id: string
  label: string
  value: string
}

/** Vault and item names Tazuna accepts (letters, digits, `_`, `.`, `-`, space). */
const OP_NAME = /^[\p{L}\p{N}_.\- ]+$/u

/** An `op://<host>/<vault>/<item>` reference, or a message saying what is wrong with it. */
export function parseOpUri(uri: string): { vault: string; item: string } | { error: string } {
  const rest = uri.startsWith('op://') ? uri.slice('op://'.length) : undefined
  const parts = rest?.split('/') ?? []
  const [host, vault, item] = parts
  if (parts.length !== 3 || !host || vault === undefined || item === undefined) {
    return {
      error: `invalid 1Password URI ${JSON.stringify(uri)}: expected op://<host>/<vault>/<item>`
    }
  }
  const bad = [vault, item].find((name) => !OP_NAME.test(name))
  if (bad !== undefined) {
    return {
      error: `invalid 1Password URI ${JSON.stringify(uri)}: name ${JSON.stringify(bad)} has characters other than letters, digits, '_', '.', '-' and space`
    }
  }
  return { vault, item }
}

/** Reads the `fields` of `op item get --format json` output; throws without quoting the JSON. */
export function parseOpItem(json: string, where: string): OpField[] {
  let doc: unknown
  try {
    doc = JSON.parse(json)
  } catch {
    throw new Error(`${where}: op printed output that is not JSON`)
  }
  const fields =
    typeof doc === 'object' && doc !== null ? (doc as { fields?: unknown }).fields : undefined
  if (fields === undefined || fields === null) return []
  if (!Array.isArray(fields)) throw new Error(`${where}: op output has no "fields" list`)
  return fields.map((f: unknown) => {
    const field = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>
    return { id: str(field.id), label: str(field.label), value: str(field.value) }
  })
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** How to run op. */
export interface OpRun {
  runner: CommandRunner
  command?: string
  redact: (text: string) => string
}

/** Fetches an item's fields with the op CLI; `describe` names the manifest/var for errors. */
export async function fetchOpItem(
  run: OpRun,
  vault: string,
  item: string,
  describe: string
): Promise<OpField[]> {
  const stdout = await runTool(
    { runner: run.runner, tool: 'op', command: run.command, redact: run.redact },
    ['--format', 'json', 'item', 'get', '--vault', vault, item],
    { describe }
  )
  return parseOpItem(stdout, `${describe}: 1Password item ${vault}/${item}`)
}
