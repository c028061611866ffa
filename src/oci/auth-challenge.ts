/**
 * The parts of oras-go's auth client (v2.6.1, used by Helm v3.21.4) that are plain text
 * handling: reading a `WWW-Authenticate` challenge and merging token scopes.
 */

/** A parsed `WWW-Authenticate` header: the scheme and, for Bearer, its parameters. */
export interface AuthChallenge {
  scheme: 'basic' | 'bearer' | 'unknown'
  params: Record<string, string>
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/

function parseToken(s: string): [string, string] {
  let i = 0
  while (i < s.length && TOKEN_CHAR.test(s[i] ?? '')) i++
  return [s.slice(0, i), s.slice(i)]
}

const skipSpace = (s: string): string => s.replace(/^[ \t]+/, '')

function quotedPrefix(s: string): [string, string] | undefined {
  let value = ''
  for (let i = 1; i < s.length; i++) {
    const c = s[i] ?? ''
    if (c === '"') return [value, s.slice(i + 1)]
    if (c === '\\') {
      i++
      value += s[i] ?? ''
    } else value += c
  }
  return undefined
}

/** oras-go `parseChallenge`: stops at the first malformed parameter, keeping what it read. */
export function parseChallenge(header: string): AuthChallenge {
  const [schemeText, afterScheme] = parseToken(header)
  const lower = schemeText.toLowerCase()
  const scheme = lower === 'basic' ? 'basic' : lower === 'bearer' ? 'bearer' : 'unknown'
  const params: Record<string, string> = {}
  if (scheme !== 'bearer') return { scheme, params }
  let rest = afterScheme
  for (;;) {
    let key: string
    ;[key, rest] = parseToken(skipSpace(rest))
    if (key === '') break
    rest = skipSpace(rest)
    if (!rest.startsWith('=')) break
    rest = skipSpace(rest.slice(1))
    if (rest === '') break
    let value: string
    if (rest.startsWith('"')) {
      const quoted = quotedPrefix(rest)
      if (quoted === undefined) break
      ;[value, rest] = quoted
    } else {
      ;[value, rest] = parseToken(rest)
      if (value === '') break
    }
    params[key.toLowerCase()] = value
    rest = skipSpace(rest)
    if (!rest.startsWith(',')) break
    rest = rest.slice(1)
  }
  return { scheme, params }
}

/** oras-go `CleanScopes`: one scope per resource with its actions merged and sorted. */
export function cleanScopes(scopes: readonly string[]): string[] {
  const loose: string[] = []
  const byResource = new Map<string, Set<string>>()
  for (const scope of scopes) {
    const first = scope.indexOf(':')
    const last = scope.lastIndexOf(':')
    if (first < 0 || last === first) {
      loose.push(scope)
      continue
    }
    const resource = scope.slice(0, last)
    const actions = scope
      .slice(last + 1)
      .split(',')
      .filter((a) => a !== '')
    if (actions.length === 0) continue
    const set = byResource.get(resource) ?? new Set<string>()
    for (const a of actions) set.add(a)
    byResource.set(resource, set)
  }
  const merged = [...byResource].map(([resource, set]) => {
    const actions = set.has('*') ? ['*'] : [...set].sort()
    return `${resource}:${actions.join(',')}`
  })
  return [...loose, ...merged].sort()
}

/** The scope a pull of `repository` needs (oras-go `ScopeRepository(repo, "pull")`). */
export function pullScope(repository: string): string {
  return `repository:${repository}:pull`
}
