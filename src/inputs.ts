/**
 * Action inputs -> one typed, validated settings object (house style: actions/checkout's
 * input-helper). Pure: the runner's environment comes in through {@link InputSource}, so the
 * same function serves main.ts and the unit tests. Every wrong input fails with an InputError
 * naming the input and the values it accepts.
 */
import { InputError } from './errors.js'
import { parseRiskKinds, type RiskKind } from './risk/model.js'
import type { ReviewedDiffMode } from './report/diff-gate.js'
import { snapshotRefProblem } from './state/snapshot-ref.js'

/** What the action does in this run. */
export type Mode = 'check' | 'diff' | 'apply' | 'drift' | 'publish'

/** What the Diff shows inside each object: a diff from the base commit's render, from the live
 * object (server-side dry run), or nothing (hashes only). */
export type ContentDiffMode = 'base' | 'live' | 'off'

/**
 * Where a pull request's Diff reads State: the cluster, the State snapshot on the ref of input
 * `state-snapshot`, or `auto` (the cluster when a kubeconfig is given, else the snapshot when its
 * ref can be fetched). docs/state-snapshots.md#pull-requests-without-cluster-credentials
 */
export type StateSourceMode = 'cluster' | 'snapshot' | 'auto'

/** Where the kubeconfig comes from: the ambient one, a file, or the input's own text. */
export type KubeconfigSource =
  { kind: 'ambient' } | { kind: 'path'; path: string } | { kind: 'content'; content: string }

/**
 * How the run authenticates to the cluster (input `cluster-auth`, README.md#keyless): with the
 * kubeconfig's credentials, or with the job's OpenID Connect ID token as the bearer token, sent
 * to the kubeconfig's cluster or to input `server`.
 */
export type ClusterAuth =
  | { kind: 'kubeconfig' }
  | {
      kind: 'github-oidc'
      /** Input `oidc-audience`: the ID token's `aud`, which the cluster's authenticator expects. */
      audience: string
      /** Input `server`: the API server's https URL; undefined: the kubeconfig's cluster. */
      server: string | undefined
      /** Input `certificate-authority`: PEM text or a file path; undefined: the system's roots. */
      certificateAuthority:
        { kind: 'path'; path: string } | { kind: 'content'; content: string } | undefined
    }

/** The audience of the ID token when input `oidc-audience` is empty (README.md#keyless). */
export const DEFAULT_OIDC_AUDIENCE = 'tazuna-action'

/** Every input of action.yml, validated. */
export interface Settings {
  /** Path of tazuna.yaml as given (relative to the workspace). */
  config: string
  environment: string
  /**
   * Input `target`: the cluster this job deploys to, when one config and environment go to
   * several; '' (default) as before. Part of the comment's marker and title, the reviewed Diff's
   * key, the lock holder, the summary, report.json and the drift issue.
   */
  target: string
  tags: string[]
  mode: Mode
  sync: boolean
  prune: boolean
  atomic: boolean
  /**
   * Input `wait` (docs/health.md#wait): after each layer, wait until every object it applied is
   * Current, for at most `wait-timeout`; absent when `wait` is false.
   */
  wait?: { timeoutMs: number; timeout: string }
  kubeconfig: KubeconfigSource
  clusterAuth: ClusterAuth
  githubToken: string
  comment: boolean
  failOnDiff: boolean
  /** Risk kinds that fail a Diff job when found and not accepted (docs/risks.md). */
  failOnRisk: RiskKind[]
  /** How long an apply waits for the run lock held by another run. */
  lockTimeoutSeconds: number
  /** How long one manifest's render (or one helmfile release's) may take. */
  renderTimeoutSeconds: number
  /** How long one render's output may be. */
  maxRenderBytes: number
  /** Input max-render-memory: the WebAssembly memory of one render program, in bytes. */
  maxRenderMemory: number
  /** Directories outside the workspace that tazuna.yaml may read (relative to the workspace). */
  allowedPaths: string[]
  /** Apply even when State records a commit the pushed one does not descend from. */
  allowOlderCommit: boolean
  /** Fail the step when drift mode finds drift (fields changed outside tazuna, missing objects). */
  failOnDrift: boolean
  /** Keep one issue per (config, environment) current in drift mode. */
  driftIssue: boolean
  contentDiff: ContentDiffMode
  /** type oras: use only the artifact cache (Tazuna's `--offline`). */
  orasOffline: boolean
  /** type oras: ignore the artifact cache (Tazuna's `--no-cache`). */
  orasNoCache: boolean
  /** Skip the renders that State's render records show unchanged (docs/renderers.md). */
  skipUnchangedRenders: boolean
  /** Apply mode on push: compare with the Diff reviewed on the pull request (README.md#gated-deploys). */
  reviewedDiff: ReviewedDiffMode
  /**
   * Apply mode: the git ref to publish a State snapshot on after the apply
   * (docs/state-snapshots.md#on-a-git-ref); undefined: off.
   */
  stateSnapshotRef: string | undefined
  /** Diff mode: where State is read (input `state-source`). */
  stateSource: StateSourceMode
  /**
   * Publish mode: report.json (or its directory) of a pull request's run to post
   * (docs/fork-pull-requests.md); '' otherwise.
   */
  report: string
}

/** The runner's view of inputs, environment and event; main.ts binds it to @actions/*. */
export interface InputSource {
  /** The input's value ('' when unset), as the runner passes it in `INPUT_<NAME>`. */
  input(name: string): string
  /** An environment variable. */
  env(name: string): string | undefined
  /** `GITHUB_EVENT_NAME` of the run. */
  eventName: string
}

/** Defaults of action.yml, repeated so a run without the runner's defaulting behaves the same. */
export const inputDefaults = {
  config: 'tazuna.yaml',
  environment: '',
  target: '',
  tags: '',
  mode: 'auto',
  sync: 'true',
  prune: 'false',
  atomic: 'false',
  wait: 'false',
  'wait-timeout': '5m',
  kubeconfig: '',
  'cluster-auth': 'kubeconfig',
  'oidc-audience': DEFAULT_OIDC_AUDIENCE,
  server: '',
  'certificate-authority': '',
  'github-token': '',
  comment: 'true',
  'fail-on-diff': 'false',
  'fail-on-risk': '',
  'lock-timeout': '10m',
  'render-timeout': '5m',
  'max-render-bytes': '256Mi',
  'max-render-memory': '1Gi',
  'allowed-paths': '',
  'allow-older-commit': 'false',
  'fail-on-drift': 'false',
  'drift-issue': 'false',
  'content-diff': 'base',
  'state-source': 'auto',
  'oras-offline': 'false',
  'oras-no-cache': 'false',
  'skip-unchanged-renders': 'true',
  'reviewed-diff': 'warn',
  'state-snapshot': 'off',
  report: ''
} as const

type InputName = keyof typeof inputDefaults

const modes = ['auto', 'check', 'diff', 'apply', 'drift', 'publish'] as const
const contentDiffModes = ['base', 'live', 'off'] as const
const reviewedDiffModes = ['warn', 'require', 'off'] as const
const stateSourceModes = ['cluster', 'snapshot', 'auto'] as const
const pullRequestEvents = new Set(['pull_request', 'pull_request_target'])
const pushEvents = new Set(['push'])
const scheduledEvents = new Set(['schedule', 'workflow_dispatch'])

/** Reads and validates every input; throws InputError on the first wrong one. */
export function readSettings(source: InputSource): Settings {
  const read = (name: InputName): string => {
    const value = source.input(name).trim()
    return value === '' ? inputDefaults[name] : value
  }
  const flag = (name: InputName): boolean => parseBoolean(name, read(name))

  const sync = flag('sync')
  // TAZUNA_STATE_SYNC_DELETE=true is the legacy `state sync` switch that became --prune
  // (docs/compatibility.md#legacy-state-sync: compared case-insensitively with "true").
  const prune = flag('prune') || source.env('TAZUNA_STATE_SYNC_DELETE')?.toLowerCase() === 'true'
  const atomic = flag('atomic')
  if (!sync && prune) {
    throw new InputError(
      'input "prune" (or TAZUNA_STATE_SYNC_DELETE=true) requires input "sync" to be "true"'
    )
  }
  if (!sync && atomic) throw new InputError('input "atomic" requires input "sync" to be "true"')
  const orasOffline = flag('oras-offline')
  const orasNoCache = flag('oras-no-cache')
  if (orasOffline && orasNoCache) {
    throw new InputError(
      'inputs "oras-offline" and "oras-no-cache" cannot both be "true" ' +
        '(Tazuna: --no-cache and --offline cannot be specified together)'
    )
  }

  const mode = resolveMode(read('mode'), source.eventName)
  return {
    config: read('config'),
    environment: read('environment'),
    target: parseTarget(read('target')),
    tags: splitList(read('tags')),
    mode,
    sync,
    prune,
    atomic,
    ...waitOf(flag('wait'), 'input "wait-timeout"', read('wait-timeout')),
    kubeconfig: classifyKubeconfig(source.input('kubeconfig')),
    clusterAuth: parseClusterAuth(read, source.input('kubeconfig').trim() !== ''),
    githubToken: read('github-token'),
    comment: flag('comment'),
    failOnDiff: flag('fail-on-diff'),
    failOnRisk: parseFailOnRisk(read('fail-on-risk')),
    lockTimeoutSeconds: parseDurationSeconds('input "lock-timeout"', read('lock-timeout')),
    renderTimeoutSeconds: positive(
      'input "render-timeout"',
      parseDurationSeconds('input "render-timeout"', read('render-timeout'))
    ),
    maxRenderBytes: parseByteSize('input "max-render-bytes"', read('max-render-bytes')),
    maxRenderMemory: parseByteSize('input "max-render-memory"', read('max-render-memory')),
    allowedPaths: splitList(read('allowed-paths')),
    allowOlderCommit: flag('allow-older-commit'),
    failOnDrift: flag('fail-on-drift'),
    driftIssue: flag('drift-issue'),
    contentDiff: parseContentDiff(read('content-diff')),
    orasOffline,
    orasNoCache,
    skipUnchangedRenders: flag('skip-unchanged-renders'),
    reviewedDiff: parseReviewedDiff(read('reviewed-diff')),
    stateSnapshotRef: parseStateSnapshot(read('state-snapshot')),
    stateSource: parseStateSource(read('state-source')),
    report: reportInput(read('report'), mode)
  }
}

// Publish mode posts nothing but a report, so it needs one; no other mode reads it.
function reportInput(value: string, mode: Mode): string {
  if (mode === 'publish' && value === '') {
    throw new InputError(
      'input "report" is empty: mode publish needs the path of report.json (or of the directory actions/download-artifact put it in)'
    )
  }
  return value
}

/** `off`, or a git ref snapshots may be published on (src/state/snapshot-ref.ts). */
export function parseStateSnapshot(value: string): string | undefined {
  if (value === 'off') return undefined
  const problem = snapshotRefProblem(value)
  if (problem === undefined) return value
  throw new InputError(
    `input "state-snapshot" must be off or a git ref such as refs/tazuna-state/<config>/<environment>; ${JSON.stringify(value)} ${problem}`
  )
}

/** `cluster`, `snapshot` or `auto`; anything else names the input and the accepted values. */
export function parseStateSource(value: string): StateSourceMode {
  if ((stateSourceModes as readonly string[]).includes(value)) return value as StateSourceMode
  throw new InputError(
    `input "state-source" must be one of ${stateSourceModes.join(', ')}, got ${JSON.stringify(value)}`
  )
}

/** Comma- or newline-separated risk kinds; an unknown one names the input and the kinds. */
export function parseFailOnRisk(value: string): RiskKind[] {
  try {
    return parseRiskKinds(value, 'input "fail-on-risk"')
  } catch (error) {
    throw new InputError(error instanceof Error ? error.message : String(error))
  }
}

/** `base`, `live` or `off`; anything else names the input and the accepted values. */
export function parseContentDiff(value: string): ContentDiffMode {
  if ((contentDiffModes as readonly string[]).includes(value)) return value as ContentDiffMode
  throw new InputError(
    `input "content-diff" must be one of ${contentDiffModes.join(', ')}, got ${JSON.stringify(value)}`
  )
}

/** `warn`, `require` or `off`; anything else names the input and the accepted values. */
export function parseReviewedDiff(value: string): ReviewedDiffMode {
  if ((reviewedDiffModes as readonly string[]).includes(value)) return value as ReviewedDiffMode
  throw new InputError(
    `input "reviewed-diff" must be one of ${reviewedDiffModes.join(', ')}, got ${JSON.stringify(value)}`
  )
}

/**
 * The `wait` switch with its timeout (a duration, more than 0); nothing when not waiting. The
 * timeout is checked either way, so a typo fails before any run that would use it.
 */
export function waitOf(
  wait: boolean,
  what: string,
  timeout: string
): { wait?: { timeoutMs: number; timeout: string } } {
  const seconds = positive(what, parseDurationSeconds(what, timeout))
  return wait ? { wait: { timeoutMs: seconds * 1000, timeout: timeout.trim() } } : {}
}

/**
 * A duration in whole seconds from `90`, `90s`, `10m`, `1h30m` (Go's units s, m, h); `what`
 * names the input or flag in the error.
 */
export function parseDurationSeconds(what: string, value: string): number {
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const units: Record<string, number> = { h: 3600, m: 60, s: 1 }
  let total = 0
  let rest = trimmed
  for (const part of trimmed.match(/\d+[hms]/g) ?? []) {
    total += Number(part.slice(0, -1)) * units[part.slice(-1)]!
    rest = rest.replace(part, '')
  }
  if (trimmed === '' || rest !== '') {
    throw new InputError(
      `${what} must be a duration such as 600, 90s, 10m or 1h30m, got ${JSON.stringify(value)}`
    )
  }
  return total
}

/** Bytes from `268435456`, `256Mi`, `1Gi`, `512Ki` (binary units, as Kubernetes quantities). */
export function parseByteSize(what: string, value: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(value.trim())
  const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }
  const bytes = match === null ? 0 : Number(match[1]) * (match[2] ? units[match[2]]! : 1)
  if (bytes <= 0) {
    throw new InputError(
      `${what} must be a size such as 268435456, 256Mi or 1Gi, got ${JSON.stringify(value)}`
    )
  }
  return bytes
}

function positive(what: string, seconds: number): number {
  if (seconds > 0) return seconds
  throw new InputError(`${what} must be longer than 0 s`)
}

/** YAML 1.2 core-schema booleans, exactly what `core.getBooleanInput` accepts. */
export function parseBoolean(name: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new InputError(
    `input "${name}" must be a boolean (true or false), got ${JSON.stringify(value)}`
  )
}

/** Splits a comma- or newline-separated list; blanks are dropped, duplicates kept once. */
export function splitList(value: string): string[] {
  const items = value
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '')
  return [...new Set(items)]
}

/**
 * `auto` follows the event: pull requests diff, pushes apply, scheduled and manual runs look
 * for drift; anything else is an error.
 */
export function resolveMode(mode: string, eventName: string): Mode {
  if (!(modes as readonly string[]).includes(mode)) {
    throw new InputError(
      `input "mode" must be one of ${modes.join(', ')}, got ${JSON.stringify(mode)}`
    )
  }
  if (mode !== 'auto') return mode as Mode
  if (pullRequestEvents.has(eventName)) return 'diff'
  if (pushEvents.has(eventName)) return 'apply'
  if (scheduledEvents.has(eventName)) return 'drift'
  throw new InputError(
    `input "mode" is "auto", which picks a mode only for pull_request, pull_request_target ` +
      `(diff), push (apply), schedule and workflow_dispatch (drift) events, but this run's ` +
      `event is ${JSON.stringify(eventName)}: set mode to check, diff, apply, drift or publish`
  )
}

/** Input `target`: '' or a name of letters, digits and `.`, `_`, `-`, `/`, `:` (at most 100). */
export function parseTarget(value: string): string {
  if (value === '' || /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(value)) return value
  throw new InputError(
    `input "target" must be a name of letters, digits and . _ - / : (at most 100 characters, ` +
      `starting with a letter or digit), got ${JSON.stringify(value.slice(0, 120))}`
  )
}

/**
 * Inputs `cluster-auth`, `oidc-audience`, `server` and `certificate-authority`; `server` and
 * `certificate-authority` only go with github-oidc, and `server` not with input `kubeconfig`.
 */
function parseClusterAuth(
  read: (name: InputName) => string,
  kubeconfigGiven: boolean
): ClusterAuth {
  const kind = read('cluster-auth')
  const server = read('server')
  const ca = read('certificate-authority')
  if (kind === 'kubeconfig') {
    for (const [name, value] of [
      ['server', server],
      ['certificate-authority', ca]
    ] as const) {
      if (value !== '') {
        throw new InputError(
          `input "${name}" is used with cluster-auth github-oidc only; with cluster-auth ` +
            'kubeconfig the kubeconfig names the server and its certificate authority'
        )
      }
    }
    return { kind }
  }
  if (kind !== 'github-oidc') {
    throw new InputError(
      `input "cluster-auth" must be one of kubeconfig, github-oidc, got ${JSON.stringify(kind)}`
    )
  }
  if (server !== '' && kubeconfigGiven) {
    throw new InputError(
      'inputs "server" and "kubeconfig" name the cluster twice: give one of them'
    )
  }
  if (server !== '' && !/^https:\/\/[^/\s]+/.test(server)) {
    throw new InputError(
      `input "server" must be the API server's https URL (https://host[:port]), got ${JSON.stringify(server)}`
    )
  }
  if (ca !== '' && server === '') {
    throw new InputError(
      'input "certificate-authority" goes with input "server"; a kubeconfig names its own ' +
        'certificate authority'
    )
  }
  const audience = read('oidc-audience')
  return {
    kind,
    audience,
    server: server === '' ? undefined : server,
    certificateAuthority:
      ca === ''
        ? undefined
        : ca.includes('-----BEGIN')
          ? { kind: 'content', content: ca }
          : { kind: 'path', path: ca }
  }
}

/**
 * The kubeconfig input holds either a path or the file's text (a secret passed straight in).
 * Text is recognised by a line break or by starting like a kubeconfig (YAML `apiVersion:` or
 * JSON `{`), which no sensible path does.
 */
export function classifyKubeconfig(value: string): KubeconfigSource {
  const trimmed = value.trim()
  if (trimmed === '') return { kind: 'ambient' }
  if (trimmed.includes('\n') || trimmed.startsWith('{') || /^apiVersion\s*:/.test(trimmed)) {
    return { kind: 'content', content: value.endsWith('\n') ? value : `${value}\n` }
  }
  return { kind: 'path', path: trimmed }
}
