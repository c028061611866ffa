/**
 * Markdown building blocks that stay well-formed whatever text they carry: fences longer than
 * any backtick run inside, HTML-escaped `<summary>` text, `<details>` that always close
 * (README.md#the-pull-request-comment).
 */

/** A fenced code block whose fence is longer than every backtick run in `content`. */
export function codeBlock(content: string, language = ''): string {
  const longestRun = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(Math.max(3, longestRun + 1))
  const body = content.endsWith('\n') ? content : `${content}\n`
  return `${fence}${language}\n${body}${fence}\n`
}

/** An inline code span that survives backticks and pipes (safe inside table cells too). */
export function inlineCode(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|')
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = '`'.repeat(longestRun + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return `${ticks}${pad}${flat}${pad}${ticks}`
}

/** Escapes text for HTML context (inside `<summary>` and other inline HTML). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}

/** A collapsible section; `summaryHtml` must already be escaped, `body` is Markdown. */
export function details(summaryHtml: string, body: string, open = false): string {
  const tag = open ? '<details open>' : '<details>'
  return `${tag}<summary>${summaryHtml}</summary>\n\n${body.trimEnd()}\n\n</details>\n`
}

/** Shortens display text (never Markdown structure) to at most `max` characters. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`
}

/** Length in UTF-8 bytes: job summaries are limited in bytes, comments in characters. */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length
}

/** `1 added, 2 modified`: the non-zero counts, or `no changes`. */
export function describeCounts(counts: {
  added: number
  modified: number
  removed: number
  alwaysSync: number
}): string {
  const parts = [
    [counts.added, 'added'],
    [counts.modified, 'modified'],
    [counts.removed, 'removed'],
    [counts.alwaysSync, 'always-sync']
  ]
    .filter(([n]) => n !== 0)
    .map(([n, label]) => `${n} ${label}`)
  return parts.length === 0 ? 'no changes' : parts.join(', ')
}

/** Milliseconds as `850 ms`, `12.3 s` or `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}
