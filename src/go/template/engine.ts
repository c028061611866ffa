/**
 * Go text/template rendering as Tazuna does it (docs/compatibility.md#config-loading step 2,
 * docs/compatibility.md#helmfile step 3, docs/compatibility.md#go-templates). The renderer is Go's
 * own text/template compiled to WebAssembly (src/go/template/engine); this module holds the
 * contract and the data each mode sees.
 */
import type { JsonObject } from '../yaml.js'

/**
 * `tazuna`: tazuna.yaml and include files — Go built-ins only, `missingkey=error`.
 * `helmfile`: helmfile files — sprig minus env/expandenv, Helm's toYaml/fromYaml/toJson/fromJson,
 * `missingkey=zero`.
 */
export type TemplateMode = 'tazuna' | 'helmfile'

/** One template to render; `name` is the file as the user knows it, so Go's errors name it. */
export interface RenderRequest {
  text: string
  name: string
  mode: TemplateMode
  data: JsonObject
}

/** Renders Go templates; rejects with a TemplateError carrying Go's own message. */
export interface TemplateEngine {
  render(request: RenderRequest): Promise<string>
}

/** Which step of Go's text/template failed. */
export type TemplatePhase = 'parse' | 'execute'

/** A template that Go refused to parse or execute; `message` is Go's error text verbatim. */
export class TemplateError extends Error {
  override name = 'TemplateError'
  constructor(
    message: string,
    readonly phase: TemplatePhase,
    /** 1-based line in the template, parsed from Go's `template: NAME:LINE[:COL]: ...`. */
    readonly line?: number
  ) {
    super(message)
  }
}

/** The data of a tazuna.yaml template: only `.Environment` (the `-e` value, or ""). */
export function tazunaTemplateData(environment: string): JsonObject {
  return { Environment: environment }
}

/**
 * The data of a helmfile template: vars as both `.Values` and `.StateValues`, and
 * `.Environment.Name` = the `-e` value or `default` when none is given
 * (docs/compatibility.md#helmfile step 3).
 */
export function helmfileTemplateData(vars: JsonObject, environment: string): JsonObject {
  return { Values: vars, StateValues: vars, Environment: { Name: environment || 'default' } }
}

/**
 * Whether Go could produce anything but the text itself: text/template only acts on `{{`, so
 * text without it renders verbatim in either mode and needs no engine.
 */
export function hasTemplateActions(text: string): boolean {
  return text.includes('{{')
}

/** The 1-based line Go names in `template: NAME:LINE[:COL]: ...`, if the message has one. */
export function templateErrorLine(message: string, name: string): number | undefined {
  const prefix = `template: ${name}:`
  if (!message.startsWith(prefix)) return undefined
  const match = /^(\d+)(?::\d+)?:/.exec(message.slice(prefix.length))
  return match?.[1] === undefined ? undefined : Number(match[1])
}
