/**
 * Shell completion scripts for `completion bash|zsh|fish|powershell`, generated from the command
 * table (src/cli.ts), so a new command or flag completes without editing them. Each script walks
 * the words typed so far (skipping flags and the values of flags that take one) to the command
 * they name, then offers that command's next words, its flags after `-`, or files after a flag
 * that takes a value. Static, unlike cobra's, which ask the program (docs/compatibility.md#command-line-and-kubeconfig).
 */

/** A flag as completion sees it. */
export interface CompletionFlag {
  long: string
  short?: string
  /** Takes a value in the next word (`-f FILE`), so that word is not a command word. */
  takesValue: boolean
}

/** What the scripts are generated from. */
export interface CompletionTable {
  program: string
  /** Flags of every command. */
  globalFlags: readonly CompletionFlag[]
  /** Flags without a command (`--version`). */
  rootFlags: readonly CompletionFlag[]
  commands: readonly {
    name: string
    flags: readonly CompletionFlag[]
    /** The values of the command's positional argument (`completion bash`), if fixed. */
    values?: readonly string[]
  }[]
}

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
export type CompletionShell = (typeof COMPLETION_SHELLS)[number]

/** One place in the command tree: the words that may follow and the flags that apply. */
interface Node {
  path: string
  words: string[]
  flags: string[]
}

/** Every command path and intermediate path (`state`), root first, in table order. */
function nodesOf(table: CompletionTable): Node[] {
  const nodes = new Map<string, Node>()
  const flagWords = (flags: readonly CompletionFlag[]): string[] =>
    flags.flatMap((f) => [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])])
  const global = flagWords(table.globalFlags)
  const nodeAt = (path: string): Node => {
    let node = nodes.get(path)
    if (node === undefined) {
      node = { path, words: [], flags: [...global] }
      nodes.set(path, node)
    }
    return node
  }
  nodeAt('').flags.push(...flagWords(table.rootFlags))
  for (const command of table.commands) {
    const words = command.name.split(' ')
    words.forEach((word, i) => {
      const parent = nodeAt(words.slice(0, i).join(' '))
      if (!parent.words.includes(word)) parent.words.push(word)
    })
    const node = nodeAt(command.name)
    node.words.push(...(command.values ?? []))
    node.flags.push(...flagWords(command.flags))
  }
  return [...nodes.values()]
}

/** Flags that take the next word as their value, in both spellings. */
function valueFlagsOf(table: CompletionTable): string[] {
  const all = [...table.globalFlags, ...table.rootFlags, ...table.commands.flatMap((c) => c.flags)]
  const words = all
    .filter((f) => f.takesValue)
    .flatMap((f) => [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])])
  return [...new Set(words)]
}

/** The completion script for `shell`. */
export function completionScript(shell: CompletionShell, table: CompletionTable): string {
  const generate = {
    bash: bashScript,
    zsh: zshScript,
    fish: fishScript,
    powershell: powershellScript
  }
  return generate[shell](table, nodesOf(table), valueFlagsOf(table))
}

/** `name` as a shell function name: `tazuna-action` → `_tazuna_action`. */
function functionName(program: string): string {
  return `_${program.replace(/[^A-Za-z0-9]/g, '_')}`
}

/** Single-quoted for sh, bash, zsh and PowerShell alike when it holds no `'` (ours never do). */
function quoted(text: string): string {
  if (text.includes("'")) throw new Error(`completion: a quote in ${JSON.stringify(text)}`)
  return `'${text}'`
}

/** The word walk shared by bash and zsh (both index `words` from the program's word). */
function shWalk(
  nodes: readonly Node[],
  valueFlags: readonly string[],
  first: string,
  last: string
) {
  const paths = nodes.filter((n) => n.path !== '').map((n) => quoted(n.path))
  return [
    `  local cmdpath='' word skip='' i`,
    `  for ((i = ${first}; i < ${last}; i++)); do`,
    '    word=${words[i]}',
    "    if [[ -n $skip ]]; then skip=''; continue; fi",
    '    case $word in',
    '      --*=*) ;;',
    `      ${valueFlags.join('|')}) skip=1 ;;`,
    '      -*) ;;',
    '      *)',
    '        case "${cmdpath:+$cmdpath }$word" in',
    `          ${paths.join('|')}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;`,
    '        esac',
    '        ;;',
    '    esac',
    '  done',
    '  local next flags',
    '  case $cmdpath in',
    ...nodes.map(
      (n) =>
        `    ${quoted(n.path)}) next=${quoted(n.words.join(' '))} flags=${quoted(n.flags.join(' '))} ;;`
    ),
    '  esac'
  ]
}

function bashScript(table: CompletionTable, nodes: readonly Node[], valueFlags: readonly string[]) {
  const fn = functionName(table.program)
  return [
    `# bash completion for ${table.program}: \`source <(${table.program} completion bash)\`, or save`,
    `# it as ~/.local/share/bash-completion/completions/${table.program}. Generated from its commands.`,
    `${fn}() {`,
    '  local cur=${COMP_WORDS[COMP_CWORD]} words=("${COMP_WORDS[@]}")',
    ...shWalk(nodes, valueFlags, '1', 'COMP_CWORD'),
    '  # After a flag that takes a value: files (complete -o default).',
    '  if [[ -n $skip ]]; then COMPREPLY=(); return; fi',
    '  if [[ $cur == -* ]]; then',
    '    mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")',
    '  else',
    '    mapfile -t COMPREPLY < <(compgen -W "$next" -- "$cur")',
    '  fi',
    '}',
    `complete -o default -F ${fn} ${table.program}`,
    ''
  ].join('\n')
}

function zshScript(table: CompletionTable, nodes: readonly Node[], valueFlags: readonly string[]) {
  const fn = functionName(table.program)
  return [
    `#compdef ${table.program}`,
    `# zsh completion for ${table.program}: \`source <(${table.program} completion zsh)\` after compinit,`,
    `# or save it as _${table.program} in a directory of $fpath. Generated from its commands.`,
    `${fn}() {`,
    ...shWalk(nodes, valueFlags, '2', 'CURRENT'),
    '  if [[ -n $skip ]]; then _files; return; fi',
    '  if [[ ${words[CURRENT]} == -* ]]; then',
    '    compadd -- ${=flags}',
    '  else',
    '    compadd -- ${=next}',
    '  fi',
    '}',
    `if [[ $funcstack[1] == ${fn} ]]; then ${fn} "$@"; else compdef ${fn} ${table.program}; fi`,
    ''
  ].join('\n')
}

/** Single-quoted for fish (`\\` and `\'` are its escapes there). */
function fishQuoted(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`
}

function fishScript(table: CompletionTable, nodes: readonly Node[], valueFlags: readonly string[]) {
  const fn = functionName(table.program)
  const program = table.program
  const paths = nodes.filter((n) => n.path !== '').map((n) => fishQuoted(n.path))
  const flagLines = (node: Node): string[] => {
    const all = [...table.globalFlags, ...(node.path === '' ? table.rootFlags : [])]
    const own = table.commands.find((c) => c.name === node.path)?.flags ?? []
    return [...all, ...own].map((f) =>
      [
        `complete -c ${program} -n ${fishQuoted(`${fn}_at ${fishQuoted(node.path)}`)}`,
        `-l ${f.long}`,
        ...(f.short ? [`-s ${f.short}`] : []),
        ...(f.takesValue ? ['-r -F'] : [])
      ].join(' ')
    )
  }
  return [
    `# fish completion for ${program}: \`${program} completion fish | source\`, or save it as`,
    `# ~/.config/fish/completions/${program}.fish. Generated from its commands.`,
    `function ${fn}_path`,
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    set -l cmdpath',
    '    set -l skip 0',
    '    for t in $tokens',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $t',
    "            case '--*=*'",
    `            case ${valueFlags.map(fishQuoted).join(' ')}`,
    '                set skip 1',
    "            case '-*'",
    "            case '*'",
    `                if contains -- (string join ' ' $cmdpath $t) ${paths.join(' ')}`,
    '                    set cmdpath $cmdpath $t',
    '                end',
    '        end',
    '    end',
    "    string join ' ' $cmdpath",
    'end',
    `function ${fn}_at`,
    `    set -l cmdpath (${fn}_path)`,
    '    test "$cmdpath" = "$argv[1]"',
    'end',
    `complete -c ${program} -f`,
    ...nodes.flatMap((node) => [
      ...node.words.map(
        (word) =>
          `complete -c ${program} -n ${fishQuoted(`${fn}_at ${fishQuoted(node.path)}`)} -a ${fishQuoted(word)}`
      ),
      ...flagLines(node)
    ]),
    ''
  ].join('\n')
}

function powershellScript(
  table: CompletionTable,
  nodes: readonly Node[],
  valueFlags: readonly string[]
) {
  const list = (items: readonly string[]): string => `@(${items.map(quoted).join(', ')})`
  return [
    `# PowerShell completion for ${table.program}: \`${table.program} completion powershell | Out-String | Invoke-Expression\`,`,
    '# or add that line to $PROFILE. Generated from its commands.',
    `Register-ArgumentCompleter -Native -CommandName ${quoted(table.program)} -ScriptBlock {`,
    '    param($wordToComplete, $commandAst, $cursorPosition)',
    '    $next = @{',
    ...nodes.map((n) => `        ${quoted(n.path)} = ${list(n.words)}`),
    '    }',
    '    $flags = @{',
    ...nodes.map((n) => `        ${quoted(n.path)} = ${list(n.flags)}`),
    '    }',
    `    $valueFlags = ${list(valueFlags)}`,
    "    $cmdpath = ''",
    '    $skip = $false',
    '    $typed = $commandAst.CommandElements | Select-Object -Skip 1 |',
    '        Where-Object { $_.Extent.EndOffset -lt $cursorPosition }',
    '    foreach ($element in $typed) {',
    '        $word = $element.ToString()',
    '        if ($skip) { $skip = $false; continue }',
    "        if ($word -like '--*=*') { continue }",
    '        if ($valueFlags -contains $word) { $skip = $true; continue }',
    "        if ($word -like '-*') { continue }",
    '        $candidate = if ($cmdpath) { "$cmdpath $word" } else { $word }',
    '        if ($next.ContainsKey($candidate)) { $cmdpath = $candidate }',
    '    }',
    '    if ($skip) { return }',
    "    $offered = if ($wordToComplete -like '-*') { $flags[$cmdpath] } else { $next[$cmdpath] }",
    '    $offered | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {',
    "        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)",
    '    }',
    '}',
    ''
  ].join('\n')
}
