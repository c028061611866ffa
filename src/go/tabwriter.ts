/**
 * Go's text/tabwriter as Tazuna's `chart list` configures it (minwidth 0, tabwidth 0, padding
 * 2, padchar ' ', no flags): tab-terminated cells of adjacent lines form a column block, padded
 * to the widest cell plus the padding; the text after a line's last tab is not a cell and is
 * written as it is. Widths count code points (Go counts runes). Expected values:
 * __tests__/oracle/tabwriter (Go).
 */

/** The padding between columns, as in `tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)`. */
const PADDING = 2

/** What Go's tabwriter writes for `text` with Tazuna's settings, Flush included. */
export function tabwriterText(text: string): string {
  const lines = text.split('\n').map((line) => line.split('\t'))
  const out: string[] = []
  const widths: number[] = []
  format(lines, 0, lines.length, widths, out)
  return out.join('')
}

function format(
  lines: readonly string[][],
  first: number,
  end: number,
  widths: number[],
  out: string[]
): void {
  const column = widths.length
  let line0 = first
  for (let i = first; i < end; i++) {
    if (column >= cellsOf(lines, i) - 1) continue
    // A line with a cell in this column starts a block: the lines before it are done.
    writeLines(lines, line0, i, widths, out)
    line0 = i
    let width = 0
    for (; i < end && column < cellsOf(lines, i) - 1; i++) {
      width = Math.max(width, runeCount(lines[i]?.[column] ?? '') + PADDING)
    }
    widths.push(width)
    format(lines, line0, i, widths, out)
    widths.pop()
    line0 = i
    i-- // the loop's i++ must not skip the line that ended the block
  }
  writeLines(lines, line0, end, widths, out)
}

function writeLines(
  lines: readonly string[][],
  first: number,
  end: number,
  widths: readonly number[],
  out: string[]
): void {
  for (let i = first; i < end; i++) {
    const cells = lines[i] ?? []
    cells.forEach((cell, j) => {
      out.push(cell)
      const width = widths[j]
      if (width !== undefined) out.push(' '.repeat(Math.max(0, width - runeCount(cell))))
    })
    // The text after the last line break has no line break of its own.
    if (i + 1 < lines.length) out.push('\n')
  }
}

function cellsOf(lines: readonly string[][], i: number): number {
  return lines[i]?.length ?? 0
}

function runeCount(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}
