/**
 * A small emulation of the GitHub REST endpoints the action calls, on loopback: list, create
 * and update issue comments (paginated with Link headers); list, create and update issues (the
 * drift issue; `state` filter); the pull requests a commit belongs to (commits/{sha}/pulls,
 * from pull requests registered with their merge style); one pull request (pulls/{number}, with
 * its head repository, for a fork's); GET /user; and GitHub's refusals
 * (403 for read-only tokens and for endpoints a GITHUB_TOKEN may not call, 422 for a body over
 * 65,536 characters). GitHub itself is unreachable from the development machines (house style:
 * the GitHub API is the one thing emulated). Every request is recorded for assertions.
 *
 * Self-contained (node: imports only, erasable TypeScript) so Node 24 can also run it directly
 * for the demo: `node __tests__/github-emulator/server.ts` prints `GITHUB_API_URL=...` and
 * serves until SIGTERM; `GET /_emulator/state` returns the comments and requests as JSON, and
 * `POST /_emulator/pulls` registers a pull request ({@link PullRegistration}, as JSON).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Who a token belongs to. A GITHUB_TOKEN is an integration: GET /user answers 403 for it. */
export interface TokenIdentity {
  login: string
  type: 'Bot' | 'User'
  integration: boolean
  /** A read-only token (fork pull requests) gets 403 on every write. */
  readOnly?: boolean
}

/** An issue comment as the emulator stores it. */
export interface EmulatedComment {
  id: number
  owner: string
  repo: string
  issue: number
  body: string
  user: { login: string; type: 'Bot' | 'User' }
  created_at: string
  updated_at: string
}

/** An issue as the emulator stores it. */
export interface EmulatedIssue {
  number: number
  owner: string
  repo: string
  title: string
  body: string
  state: 'open' | 'closed'
  state_reason: string | null
  user: { login: string; type: 'Bot' | 'User' }
  created_at: string
  updated_at: string
}

/** A request as received (the authorization header is kept only as "present or not"). */
export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  body?: unknown
  authenticated: boolean
}

/** Options of {@link GitHubEmulator.start}. */
export interface EmulatorOptions {
  /** Token -> identity; defaults to one GITHUB_TOKEN `test-token` of github-actions[bot]. */
  tokens?: Record<string, TokenIdentity>
  /** Base for html_url values. */
  serverUrl?: string
  /**
   * The repository's history for the compare API: `ahead`, `behind`, `diverged` or `identical`
   * for base...head, or undefined for an unknown commit (404). Tests answer it from a real git
   * repository with the whole history, as GitHub has it.
   */
  compare?: (base: string, head: string) => string | undefined
}

/**
 * How a pull request was merged and the commits the merge put on the base branch: `merge`, the
 * merge commit; `squash`, the one squash commit; `rebase`, each rebased commit, oldest first.
 * Tests make them with real git, as GitHub's three merge buttons do.
 */
export interface PullMerge {
  style: 'merge' | 'squash' | 'rebase'
  commits: string[]
}

/** A pull request as the emulator stores it: its head branch's commits and, once merged, how. */
export interface PullRegistration {
  owner: string
  repo: string
  number: number
  /** The head branch's own commits, oldest first; the last is the head. */
  headCommits: string[]
  merge?: PullMerge
  /** `owner/repo` of the head: a fork's, or (the default) the base repository. */
  headRepository?: string
  /** The head branch; `pull-<number>` unless given. */
  headRef?: string
  /** Closed without a merge. */
  closed?: boolean
}

/** The running emulator. */
export class GitHubEmulator {
  readonly requests: RecordedRequest[] = []
  readonly comments: EmulatedComment[] = []
  readonly issues: EmulatedIssue[] = []
  readonly pulls: (PullRegistration & { merged_at?: string })[] = []
  readonly tokens: Record<string, TokenIdentity>
  private nextId = 1000
  private clock = Date.parse('2026-11-22T00:00:00Z')

  private readonly server: Server
  private readonly serverUrl: string
  private readonly options: EmulatorOptions
  readonly url: string

  // No parameter properties: Node's type stripping (used by the demo) only erases types.
  private constructor(server: Server, url: string, options: EmulatorOptions) {
    this.server = server
    this.url = url
    this.options = options
    this.serverUrl = options.serverUrl ?? 'https://github.com'
    this.tokens = options.tokens ?? {
      'test-token': { login: 'github-actions[bot]', type: 'Bot', integration: true }
    }
  }

  /** Starts listening on a free loopback port. */
  static async start(options: EmulatorOptions = {}, port = 0): Promise<GitHubEmulator> {
    const ref: { emulator?: GitHubEmulator } = {}
    const server = createServer((req, res) => {
      ref.emulator!.handle(req, res).catch((error: unknown) => {
        send(res, 500, { message: String(error) })
      })
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    const { port: bound } = server.address() as AddressInfo
    ref.emulator = new GitHubEmulator(server, `http://127.0.0.1:${bound}`, options)
    return ref.emulator
  }

  /** Seeds a comment (for example a user's comment that quotes the action's marker). */
  addComment(c: Omit<EmulatedComment, 'id' | 'created_at' | 'updated_at'>): EmulatedComment {
    const now = this.tick()
    const comment = { ...c, id: this.nextId++, created_at: now, updated_at: now }
    this.comments.push(comment)
    return comment
  }

  /**
   * Opens a pull request, or records new commits pushed to it, or its merge: a registration
   * with `merge` marks it merged (closed) with the commits its merge produced on the base branch.
   */
  registerPull(pull: PullRegistration): void {
    const known = this.pulls.find(
      (p) => p.owner === pull.owner && p.repo === pull.repo && p.number === pull.number
    )
    const merged_at = pull.merge === undefined ? undefined : this.tick()
    const stored = { ...pull, ...(merged_at === undefined ? {} : { merged_at }) }
    if (known === undefined) this.pulls.push(stored)
    else Object.assign(known, stored)
  }

  /**
   * `GET /repos/{owner}/{repo}/commits/{sha}/pulls` as GitHub documents it: the merged pull
   * request that introduced the commit to the base branch (its merge, squash or rebased
   * commits, and for a merge commit the head commits it brought in); for a commit not on the
   * base branch, the open and merged pull requests whose head branch has it.
   */
  pullsOfCommit(owner: string, repo: string, sha: string): Record<string, unknown>[] {
    const pulls = this.pulls.filter((p) => p.owner === owner && p.repo === repo)
    const introduced = pulls.find(
      (p) =>
        p.merge !== undefined &&
        (p.merge.commits.includes(sha) ||
          (p.merge.style === 'merge' && p.headCommits.includes(sha)))
    )
    const listed = introduced ? [introduced] : pulls.filter((p) => p.headCommits.includes(sha))
    return listed.map((p) => this.presentPull(p))
  }

  /** Requests that reached the API other than the emulator's own state endpoint. */
  apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => !r.path.startsWith('/_emulator'))
  }

  /** Stops listening. */
  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private tick(): string {
    this.clock += 1000
    return new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, 'Z')
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url)
    const text = await readBody(req)
    const body: unknown = text === '' ? undefined : JSON.parse(text)
    const identity = this.identify(req.headers.authorization)
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(body === undefined ? {} : { body }),
      authenticated: req.headers.authorization !== undefined
    })
    if (url.pathname === '/_emulator/state') {
      send(res, 200, { comments: this.comments, issues: this.issues, requests: this.apiRequests() })
      return
    }
    if (url.pathname === '/_emulator/pulls' && req.method === 'POST') {
      this.registerPull(body as PullRegistration)
      send(res, 201, {})
      return
    }
    if (identity === undefined) {
      send(res, 401, { message: 'Bad credentials', status: '401' })
      return
    }
    this.route(req.method ?? 'GET', url, body, identity, res)
  }

  private route(
    method: string,
    url: URL,
    body: unknown,
    identity: TokenIdentity,
    res: ServerResponse
  ): void {
    const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname)
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)
    const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(url.pathname)
    const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(url.pathname)
    const compare = /^\/repos\/([^/]+)\/([^/]+)\/compare\/([0-9a-f]+)\.\.\.([0-9a-f]+)$/.exec(
      url.pathname
    )
    const pulls = /^\/repos\/([^/]+)\/([^/]+)\/commits\/([0-9a-f]+)\/pulls$/.exec(url.pathname)
    const pull = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(url.pathname)
    if (pulls !== null && method === 'GET') {
      this.sendPage(url, this.pullsOfCommit(pulls[1]!, pulls[2]!, pulls[3]!), res)
    } else if (pull !== null && method === 'GET') {
      const found = this.pulls.find(
        (p) => p.owner === pull[1] && p.repo === pull[2] && p.number === Number(pull[3])
      )
      if (found === undefined) return send(res, 404, { message: 'Not Found' })
      send(res, 200, this.presentPull(found))
    } else if (compare !== null && method === 'GET') {
      const status = this.options.compare?.(compare[3]!, compare[4]!)
      if (status === undefined) return send(res, 404, { message: 'Not Found' })
      send(res, 200, {
        status,
        ahead_by: 0,
        behind_by: 0,
        total_commits: 0,
        commits: [],
        files: []
      })
    } else if (issues !== null || issue !== null) {
      this.routeIssues(method, url, body, identity, res, issues, issue)
    } else if (method === 'GET' && url.pathname === '/user') {
      if (identity.integration) notAccessible(res)
      else send(res, 200, { login: identity.login, type: identity.type, id: 1 })
    } else if (list !== null && method === 'GET') {
      this.listComments(url, list[1]!, list[2]!, Number(list[3]), res)
    } else if (list !== null && method === 'POST') {
      if (identity.readOnly === true) return notAccessible(res)
      const text = bodyText(body)
      if (text === undefined || tooLong(text, res)) return
      const comment = this.addComment({
        owner: list[1]!,
        repo: list[2]!,
        issue: Number(list[3]),
        body: text,
        user: { login: identity.login, type: identity.type }
      })
      send(res, 201, this.present(comment))
    } else if (one !== null && method === 'PATCH') {
      const comment = this.comments.find(
        (c) => c.owner === one[1] && c.repo === one[2] && c.id === Number(one[3])
      )
      if (comment === undefined) return send(res, 404, { message: 'Not Found' })
      if (identity.readOnly === true || comment.user.login !== identity.login) {
        return notAccessible(res)
      }
      const text = bodyText(body)
      if (text === undefined || tooLong(text, res)) return
      comment.body = text
      comment.updated_at = this.tick()
      send(res, 200, this.present(comment))
    } else {
      send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
    }
  }

  /** Seeds an issue (for example one a user opened with the action's marker pasted in). */
  addIssue(
    i: Omit<EmulatedIssue, 'number' | 'created_at' | 'updated_at' | 'state_reason'>
  ): EmulatedIssue {
    const now = this.tick()
    const issue = {
      ...i,
      number: this.issues.length + 1,
      state_reason: null,
      created_at: now,
      updated_at: now
    }
    this.issues.push(issue)
    return issue
  }

  private routeIssues(
    method: string,
    url: URL,
    body: unknown,
    identity: TokenIdentity,
    res: ServerResponse,
    list: RegExpExecArray | null,
    one: RegExpExecArray | null
  ): void {
    if (list !== null && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open'
      const all = this.issues.filter(
        (i) => i.owner === list[1] && i.repo === list[2] && (state === 'all' || i.state === state)
      )
      return this.sendPage(
        url,
        all.map((i) => this.presentIssue(i)),
        res
      )
    }
    if (identity.readOnly === true && method !== 'GET') return notAccessible(res)
    const fields =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
    if (list !== null && method === 'POST') {
      if (typeof fields.title !== 'string') return send(res, 422, { message: 'Validation Failed' })
      const text = typeof fields.body === 'string' ? fields.body : ''
      if (tooLong(text, res)) return
      const created = this.addIssue({
        owner: list[1]!,
        repo: list[2]!,
        title: fields.title,
        body: text,
        state: 'open',
        user: { login: identity.login, type: identity.type }
      })
      return send(res, 201, this.presentIssue(created))
    }
    const found =
      one === null
        ? undefined
        : this.issues.find(
            (i) => i.owner === one[1] && i.repo === one[2] && i.number === Number(one[3])
          )
    if (found === undefined) return send(res, 404, { message: 'Not Found' })
    if (method === 'GET') return send(res, 200, this.presentIssue(found))
    if (method !== 'PATCH') return send(res, 404, { message: 'Not Found' })
    if (typeof fields.body === 'string') {
      if (tooLong(fields.body, res)) return
      found.body = fields.body
    }
    if (typeof fields.title === 'string') found.title = fields.title
    if (fields.state === 'open' || fields.state === 'closed') found.state = fields.state
    if (typeof fields.state_reason === 'string') found.state_reason = fields.state_reason
    found.updated_at = this.tick()
    send(res, 200, this.presentIssue(found))
  }

  private presentIssue(i: EmulatedIssue): Record<string, unknown> {
    return {
      id: 5000 + i.number,
      number: i.number,
      url: `${this.url}/repos/${i.owner}/${i.repo}/issues/${i.number}`,
      html_url: `${this.serverUrl}/${i.owner}/${i.repo}/issues/${i.number}`,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.state_reason,
      user: { login: i.user.login, type: i.user.type, id: 41898282 },
      created_at: i.created_at,
      updated_at: i.updated_at
    }
  }

  // The fields of GitHub's pull request object that consumers of commits/{sha}/pulls and
  // pulls/{number} read.
  private presentPull(p: PullRegistration & { merged_at?: string }): Record<string, unknown> {
    return {
      id: 7000 + p.number,
      number: p.number,
      url: `${this.url}/repos/${p.owner}/${p.repo}/pulls/${p.number}`,
      html_url: `${this.serverUrl}/${p.owner}/${p.repo}/pull/${p.number}`,
      state: p.merge === undefined && p.closed !== true ? 'open' : 'closed',
      head: {
        sha: p.headCommits.at(-1),
        ref: p.headRef ?? `pull-${p.number}`,
        repo: { full_name: p.headRepository ?? `${p.owner}/${p.repo}` }
      },
      base: { ref: 'main', repo: { full_name: `${p.owner}/${p.repo}` } },
      merged_at: p.merged_at ?? null,
      // For a rebase merge, GitHub names the commit the base branch was updated to.
      merge_commit_sha: p.merge?.commits.at(-1) ?? null
    }
  }

  private sendPage(url: URL, items: unknown[], res: ServerResponse): void {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
    const pages = Math.max(1, Math.ceil(items.length / perPage))
    const link = (p: number, rel: string): string => {
      const next = new URL(url.toString())
      next.searchParams.set('page', String(p))
      next.searchParams.set('per_page', String(perPage))
      return `<${next.toString()}>; rel="${rel}"`
    }
    const links = [
      ...(page < pages ? [link(page + 1, 'next'), link(pages, 'last')] : []),
      ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])
    ]
    send(
      res,
      200,
      items.slice((page - 1) * perPage, page * perPage),
      links.length > 0 ? { link: links.join(', ') } : {}
    )
  }

  private listComments(
    url: URL,
    owner: string,
    repo: string,
    issue: number,
    res: ServerResponse
  ): void {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
    const all = this.comments.filter(
      (c) => c.owner === owner && c.repo === repo && c.issue === issue
    )
    const pages = Math.max(1, Math.ceil(all.length / perPage))
    const slice = all.slice((page - 1) * perPage, page * perPage)
    const link = (p: number, rel: string): string => {
      const next = new URL(url.toString())
      next.searchParams.set('page', String(p))
      next.searchParams.set('per_page', String(perPage))
      return `<${next.toString()}>; rel="${rel}"`
    }
    const links = [
      ...(page < pages ? [link(page + 1, 'next'), link(pages, 'last')] : []),
      ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])
    ]
    send(
      res,
      200,
      slice.map((c) => this.present(c)),
      links.length > 0 ? { link: links.join(', ') } : {}
    )
  }

  private present(c: EmulatedComment): Record<string, unknown> {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: `${this.url}/repos/${c.owner}/${c.repo}/issues/comments/${c.id}`,
      html_url: `${this.serverUrl}/${c.owner}/${c.repo}/pull/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${this.url}/repos/${c.owner}/${c.repo}/issues/${c.issue}`,
      body: c.body,
      user: { login: c.user.login, type: c.user.type, id: 41898282 },
      created_at: c.created_at,
      updated_at: c.updated_at
    }
  }

  private identify(authorization: string | undefined): TokenIdentity | undefined {
    const token = /^(?:token|bearer)\s+(.+)$/i.exec(authorization ?? '')?.[1]
    return token === undefined ? undefined : this.tokens[token]
  }
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

const send = (
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {}
): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  res.end(JSON.stringify(value))
}

const notAccessible = (res: ServerResponse): void =>
  send(res, 403, {
    message: 'Resource not accessible by integration',
    documentation_url: 'https://docs.github.com/rest',
    status: '403'
  })

const bodyText = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && typeof (body as { body?: unknown }).body === 'string'
    ? (body as { body: string }).body
    : undefined

// GitHub counts characters (code points), not UTF-16 units.
const tooLong = (text: string, res: ServerResponse): boolean => {
  if ([...text].length <= 65_536) return false
  send(res, 422, {
    message: 'Validation Failed',
    errors: [
      {
        resource: 'IssueComment',
        code: 'custom',
        field: 'body',
        message: 'body is too long (maximum is 65536 characters)'
      }
    ],
    status: '422'
  })
  return true
}

const startedDirectly =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
if (startedDirectly) {
  const readOnly = process.argv.includes('--read-only')
  const emulator = await GitHubEmulator.start({
    tokens: {
      'test-token': { login: 'github-actions[bot]', type: 'Bot', integration: true, readOnly }
    }
  })
  process.stdout.write(`GITHUB_API_URL=${emulator.url}\n`)
  const stop = (): void => void emulator.close().then(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
