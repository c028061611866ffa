/**
 * sigs.k8s.io/yaml.Marshal of a GenesisSecret's v1 Secret (docs/compatibility.md#genesissecret): Go
 * marshals the struct to JSON, go-yaml v2 reads that back into maps and writes them. The result:
 * keys sorted with go-yaml v2's "natural" order (sorter.go keyList.Less), strings in the style
 * go-yaml v2 picks, long plain and quoted strings folded at column 80, two-space indentation. A
 * port of the emitter paths (emitterc.go) that block mappings of strings, nulls and nested mappings
 * take.
 */
import type { JsonObject, JsonValue } from './yaml.js'
import { goYamlKeyLess } from './yaml-order.js'
import {
  analyzeScalar,
  isBreak,
  isPrintable,
  requestedStyle,
  utf8Width,
  type ScalarStyle
} from './yaml-scalar.js'

const BEST_INDENT = 2
const BEST_WIDTH = 80

/**
 * The YAML text sigs.k8s.io/yaml.Marshal writes for `obj`: strings, nulls, booleans, maps, and
 * sequences as map values (a GenesisSecret's `secrets` and `outputs`).
 */
export function marshalSecretYaml(obj: JsonObject): string {
  const e = new Emitter()
  e.mapping(obj)
  e.documentEnd()
  return e.text()
}

/** The emitter state of emitterc.go, reduced to block context. */
class Emitter {
  private out: number[] = []
  private column = 0
  private whitespace = true
  private indention = true
  private indent = -1

  // encode.go finish() clears open_ended before the stream end, so a keep-chomped literal at
  // the very end never gets a `...` marker: nothing to write after the document.
  text(): string {
    return Buffer.from(this.out).toString('utf8')
  }

  documentEnd(): void {
    this.writeIndent()
  }

  /** A block mapping (an empty one is written in flow style as `{}`). */
  mapping(obj: JsonObject): void {
    const keys = Object.keys(obj).sort((a, b) =>
      goYamlKeyLess(a, b) ? -1 : goYamlKeyLess(b, a) ? 1 : 0
    )
    if (keys.length === 0) {
      this.indicator('{}', true, false, false)
      return
    }
    const saved = this.indent
    this.indent = this.indent < 0 ? 0 : this.indent + BEST_INDENT
    for (const key of keys) {
      this.writeIndent()
      const keyBytes = utf8(key)
      const simple = !analyzeScalar(keyBytes).multiline && keyBytes.length <= 128
      if (simple) {
        this.scalar(key, true)
        this.indicator(':', false, false, false)
      } else {
        this.indicator('?', true, false, true)
        this.scalar(key, false)
        this.writeIndent()
        this.indicator(':', true, false, true)
      }
      this.node(obj[key] ?? null)
    }
    this.indent = saved
  }

  private node(value: JsonValue): void {
    if (value === null) this.scalar('null', false, 'plain')
    else if (typeof value === 'string') this.scalar(value, false)
    else if (typeof value === 'boolean') this.scalar(String(value), false, 'plain')
    else if (Array.isArray(value)) this.sequence(value)
    else if (typeof value === 'object') this.mapping(value)
    else throw new Error(`cannot marshal ${typeof value} in a GenesisSecret Secret`)
  }

  /**
   * A block sequence as a mapping's value: indentless (`- ` at the key's column, as go-yaml v2
   * writes a sequence in a mapping), each item on its own line; an empty one is `[]`.
   */
  private sequence(items: JsonValue[]): void {
    if (items.length === 0) {
      this.indicator('[]', true, false, false)
      return
    }
    const saved = this.indent
    this.indent = Math.max(this.indent, 0)
    for (const item of items) {
      this.writeIndent()
      this.indicator('-', true, false, true)
      this.node(item)
    }
    this.indent = saved
  }

  /** A string (or, with `requested` plain, Go's `null`) through style selection and writing. */
  private scalar(s: string, simpleKey: boolean, requested: ScalarStyle = requestedStyle(s)): void {
    const bytes = utf8(s)
    const style = selectStyle(requested, bytes, simpleKey)
    const saved = this.indent
    this.indent = this.indent < 0 ? BEST_INDENT : this.indent + BEST_INDENT
    if (style === 'plain') this.plainScalar(bytes, !simpleKey)
    else if (style === 'single') this.singleQuoted(bytes, !simpleKey)
    else if (style === 'double') this.doubleQuoted(bytes, !simpleKey)
    else this.literal(bytes)
    this.indent = saved
  }

  private put(byte: number): void {
    this.out.push(byte)
    this.column++
  }

  private putBreak(): void {
    this.out.push(0x0a)
    this.column = 0
  }

  /** Copies one UTF-8 character and returns its width. */
  private write(b: Uint8Array, i: number): number {
    const w = utf8Width(b[i] ?? 0)
    for (let k = 0; k < w; k++) this.out.push(b[i + k] ?? 0)
    this.column++
    return w
  }

  private writeBreak(b: Uint8Array, i: number): number {
    if (b[i] === 0x0a) {
      this.putBreak()
      return 1
    }
    const w = this.write(b, i)
    this.column = 0
    return w
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0)
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.putBreak()
    }
    while (this.column < indent) this.put(0x20)
    this.whitespace = true
    this.indention = true
  }

  private indicator(
    text: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean
  ): void {
    if (needWhitespace && !this.whitespace) this.put(0x20)
    for (const b of utf8(text)) this.put(b)
    this.whitespace = isWhitespace
    this.indention = this.indention && isIndention
  }

  private plainScalar(v: Uint8Array, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(0x20)
    let spaces = false
    let breaks = false
    for (let i = 0; i < v.length;) {
      if (v[i] === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && v[i + 1] !== 0x20) {
          this.writeIndent()
          i += 1
        } else i += this.write(v, i)
        spaces = true
      } else if (isBreak(v, i)) {
        if (!breaks && v[i] === 0x0a) this.putBreak()
        i += this.writeBreak(v, i)
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        i += this.write(v, i)
        this.indention = false
        spaces = breaks = false
      }
    }
    this.whitespace = false
    this.indention = false
  }

  private singleQuoted(v: Uint8Array, allowBreaks: boolean): void {
    this.indicator("'", true, false, false)
    let spaces = false
    let breaks = false
    for (let i = 0; i < v.length;) {
      if (v[i] === 0x20) {
        const fold = allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1
        if (fold && v[i + 1] !== 0x20) {
          this.writeIndent()
          i += 1
        } else i += this.write(v, i)
        spaces = true
      } else if (isBreak(v, i)) {
        if (!breaks && v[i] === 0x0a) this.putBreak()
        i += this.writeBreak(v, i)
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        if (v[i] === 0x27) this.put(0x27)
        i += this.write(v, i)
        this.indention = false
        spaces = breaks = false
      }
    }
    this.indicator("'", false, false, false)
    this.whitespace = false
    this.indention = false
  }

  private doubleQuoted(v: Uint8Array, allowBreaks: boolean): void {
    this.indicator('"', true, false, false)
    // emitterc.go's is_bom looks at the value's first three bytes whatever the index, so a value
    // that starts with a BOM has every character escaped; kept for byte equality.
    const bom = v[0] === 0xef && v[1] === 0xbb && v[2] === 0xbf
    let spaces = false
    for (let i = 0; i < v.length;) {
      const c = v[i] ?? 0
      if (!isPrintable(v, i) || bom || isBreak(v, i) || c === 0x22 || c === 0x5c) {
        const w = utf8Width(c)
        const point =
          Buffer.from(v.subarray(i, i + w))
            .toString('utf8')
            .codePointAt(0) ?? 0
        i += w
        this.put(0x5c)
        for (const b of utf8(escapeFor(point))) this.put(b)
        spaces = false
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1) {
          this.writeIndent()
          if (v[i + 1] === 0x20) this.put(0x5c)
          i += 1
        } else i += this.write(v, i)
        spaces = true
      } else {
        i += this.write(v, i)
        spaces = false
      }
    }
    this.indicator('"', false, false, false)
    this.whitespace = false
    this.indention = false
  }

  private literal(v: Uint8Array): void {
    this.indicator('|', true, false, false)
    this.blockHints(v)
    this.putBreak()
    this.indention = true
    this.whitespace = true
    let breaks = true
    for (let i = 0; i < v.length;) {
      if (isBreak(v, i)) {
        i += this.writeBreak(v, i)
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        i += this.write(v, i)
        this.indention = false
        breaks = false
      }
    }
  }

  private blockHints(v: Uint8Array): void {
    if (v[0] === 0x20 || isBreak(v, 0)) this.indicator(String(BEST_INDENT), false, false, false)
    let chomp = ''
    if (v.length === 0) chomp = '-'
    else {
      let i = v.length - 1
      while (((v[i] ?? 0) & 0xc0) === 0x80) i--
      if (!isBreak(v, i)) chomp = '-'
      else if (i === 0) chomp = '+'
      else {
        i--
        while (((v[i] ?? 0) & 0xc0) === 0x80) i--
        if (isBreak(v, i)) chomp = '+'
      }
    }
    if (chomp !== '') this.indicator(chomp, false, false, false)
  }
}

/** yaml_emitter_select_scalar_style at flow level 0 for an implicit, untagged string. */
function selectStyle(requested: ScalarStyle, v: Uint8Array, simpleKey: boolean): ScalarStyle {
  const a = analyzeScalar(v)
  let style = requested
  if (simpleKey && a.multiline) style = 'double'
  if (style === 'plain' && (!a.blockPlainAllowed || (v.length === 0 && simpleKey))) style = 'single'
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double'
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double'
  return style
}

const SHORT_ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P'
}

/** The text after the backslash for one escaped code point (upper-case hex, as go-yaml). */
function escapeFor(point: number): string {
  const short = SHORT_ESCAPES[point]
  if (short !== undefined) return short
  const hex = point.toString(16).toUpperCase()
  if (point <= 0xff) return `x${hex.padStart(2, '0')}`
  if (point <= 0xffff) return `u${hex.padStart(4, '0')}`
  return `U${hex.padStart(8, '0')}`
}

function utf8(s: string): Uint8Array {
  return Buffer.from(s, 'utf8')
}
