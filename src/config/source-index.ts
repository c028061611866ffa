/**
 * File and line of every decoded config object and of its fields or items, so that problems
 * found after decoding (validation, includes, dependsOn) still point at the user's YAML. Keys
 * are the decoded objects themselves; the config stays plain data.
 */
import type { SourceLocation } from '../errors.js'
import type { SourceRecorder } from '../go/json.js'

interface Entry {
  file: string
  line: number | undefined
  childLine(key: string | number): number | undefined
}

/**
 * Remembers where decoded objects and arrays came from: the Go decoder (src/go/json.ts) reports
 * them through its SourceRecorder, which this implements.
 */
export class SourceIndex implements SourceRecorder {
  private readonly entries = new WeakMap<object, Entry>()

  /** Records `value` as read from `file` at `line`; `childLine` finds a field's or item's line. */
  record(
    value: object,
    file: string,
    line: number | undefined,
    childLine: (key: string | number) => number | undefined
  ): void {
    this.entries.set(value, { file, line, childLine })
  }

  /**
   * Where `value` (or its field/item `key`) is: the child's own line when known, else the
   * line of `value`. `fallback` is used for objects this index has never seen.
   */
  locate(value: object, key?: string | number, fallback?: SourceLocation): SourceLocation {
    const entry = this.entries.get(value)
    if (entry === undefined) return fallback ?? { file: '<unknown>' }
    const line = (key === undefined ? undefined : entry.childLine(key)) ?? entry.line
    return line === undefined ? { file: entry.file } : { file: entry.file, line }
  }
}
