/**
 * Checks the Markdown properties the budgeted renderers promise: every code fence closes and
 * every `<details>` outside a fence closes, never before it opened. Written independently of
 * src/report (CommonMark fence rules: a closing fence is a line of at least as many backticks
 * as the opening one and nothing else).
 */
export interface Balance {
  openFence: boolean
  detailsDepth: number
  closedBeforeOpen: boolean
}

export function balanceOf(markdown: string): Balance {
  let fence: string | undefined
  let depth = 0
  let closedBeforeOpen = false
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      const closing = /^ {0,3}(`{3,})\s*$/.exec(line)
      if (closing !== null && closing[1]!.length >= fence.length) fence = undefined
      continue
    }
    const opening = /^ {0,3}(`{3,})[^`]*$/.exec(line)
    if (opening !== null) {
      fence = opening[1]!
      continue
    }
    for (const tag of line.match(/<\/?details\b[^>]*>/g) ?? []) {
      if (tag.startsWith('</')) {
        depth--
        if (depth < 0) closedBeforeOpen = true
      } else depth++
    }
  }
  return { openFence: fence !== undefined, detailsDepth: depth, closedBeforeOpen }
}

export const wellFormed: Balance = { openFence: false, detailsDepth: 0, closedBeforeOpen: false }
