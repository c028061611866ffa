/**
 * What the engine takes from the world, as small ports. The composition roots (src/main.ts for
 * the action, src/cli.ts for the command line) bind them to the real adapters through
 * src/adapters/engine-ports.ts, so both entry points drive the same engine the same way.
 */
import type { LeaseStore } from '../apply/lease-lock.js'
import type { ObjectWatcher } from '../health/ports.js'
import type { ConfigFiles } from '../config/files.js'
import type {
  BuildFiles,
  CommandRunner,
  HelmReleaseRender,
  HttpClient,
  RenderModule
} from '../render/ports.js'
import type { RenderedSource } from '../render/manifest.js'
import type { Clock, Cluster, Discovery, StateStore } from '../apply/ports.js'
import type { TemplateEngine } from '../go/template/engine.js'
import type { OrasContext, OrasPullMode } from '../render/oras/ports.js'
import type { RenderRecord } from '../state/render-record.js'
import type { JsonObject } from '../go/yaml.js'
import type { ServedApis } from '../risk/apis.js'

/** Log lines the engine emits outside an apply (warnings, the cluster target). */
export interface EngineLog {
  info(message: string): void
  warn(message: string): void
}

/**
 * What the cluster serves, for the review's API checks (docs/risks.md#apis-the-cluster-does-not-serve);
 * src/adapters/kube/api-catalog.ts reads it with discovery and GETs only.
 */
export interface ApiCatalog {
  /** Served group/versions and kinds, and the server's version (discovery, once per run). */
  served(): Promise<ServedApis>
  /**
   * The cluster's CustomResourceDefinitions of these kinds (each served at its version), by
   * `group/Kind`, read in one parallel round; a kind that no CRD defines is left out.
   */
  definitions(kinds: readonly KindRef[]): Promise<Map<string, JsonObject>>
  /**
   * The cluster's OpenAPI v3 documents of these group/versions, by group/version, as JSON text:
   * each `/openapi/v3/apis/<group>/<version>` once per run, all at once
   * (docs/risks.md#schema-findings). A group/version the server does not serve is left out.
   */
  schemas(groupVersions: readonly string[]): Promise<Map<string, string>>
}

/** One kind at one version; `group` is `''` for the core group. */
export interface KindRef {
  group: string
  version: string
  kind: string
}

/** One run's connection to the cluster (src/adapters/kube/session.ts implements it). */
export interface ClusterSession {
  cluster: Cluster
  store: StateStore
  discovery: Discovery
  /** Leases of the run lock. */
  leases: LeaseStore
  /** What the cluster serves, for the review's API checks; absent: not checked (a State snapshot). */
  apis?: ApiCatalog
  /** Lists and watches objects (the health wait, docs/health.md#watches); absent: cannot. */
  watcher?: ObjectWatcher
  /** The kubeconfig's current context (what the context guard checks). */
  context: string
  /** Where the kubeconfig came from and which context is used (for log lines). */
  describe: string
  /**
   * Connects to the API server without sending a request, so that the first request does not
   * wait for the handshakes; never rejects (a failure is the first request's to report).
   * Absent: nothing to connect (a State snapshot).
   */
  connect?(): Promise<void>
  /** Closes idle connections. */
  close(): void
}

/** Which configuration a run is about: Tazuna's global flags, or the action's inputs. */
export interface EngineSettings {
  /** tazuna.yaml as the user named it (`-f`, input `config`). */
  file: string
  /** The `-e` value, or "". */
  environment: string
  /** Tag filter for build and apply; empty selects every manifest. */
  tags: readonly string[]
  /** This program's version, for `minimumSupportedTazunaVersion`. */
  version: string
  /** Tazuna's `--offline` / `--no-cache` for `type: oras` (both off when absent). */
  orasPull?: OrasPullMode
  /**
   * Render every manifest, even one whose render record shows it unchanged (input
   * skip-unchanged-renders: false; docs/renderers.md#skipping-unchanged-renders).
   */
  renderAll?: boolean
  /**
   * How long a sync with records awaits its State read before kustomize renders start anyway
   * (docs/renderers.md#renders-started-early); 40 ms when not given, never when Infinity (tests
   * that count which manifests rendered).
   */
  earlyRenderWaitMs?: number
}

/**
 * Render records (docs/renderers.md#skipping-unchanged-renders): what a kustomize or helmfile
 * render depended on, kept with the State it produced, and whether that still holds.
 */
export interface RenderRecords {
  /**
   * The record of `rendered`, rendered by the engine's render module for the manifest whose
   * settings `manifest` gives, from files under `root`; `entries` are the State entries it
   * produced. Undefined when the render cannot be recorded (it asked something that cannot be
   * asked again, called a volatile function, or its output names `root`).
   */
  recordOf(
    rendered: RenderedSource,
    root: string,
    manifest: string,
    entries: ReadonlyMap<string, string>
  ): Promise<RenderRecord | undefined>
  /**
   * Whether `record` holds for this engine, the manifest's settings and the files now; for a
   * helmfile, `releases` are the requests its render would make now (docs/renderers.md#helm-records).
   */
  holds(
    record: RenderRecord,
    root: string,
    manifest: string,
    releases?: readonly HelmReleaseRender[]
  ): Promise<boolean>
}

/** The world as the engine sees it. */
export interface EnginePorts {
  templates: TemplateEngine
  /** kustomize and Helm at Tazuna's versions, loaded on the first render that needs them. */
  renderer: RenderModule
  /** Chart downloads (docs/compatibility.md#chart-download). */
  http: HttpClient
  runner: CommandRunner
  /** The user's files (tazuna.yaml, includes, manifests, envfiles) and private temp files. */
  files: ConfigFiles & BuildFiles
  /**
   * Opens the cluster session; called at most once, and only by modes that need a cluster.
   * Asynchronous so that the cluster adapters (and @kubernetes/client-node, most of the bundle)
   * are loaded only then: check mode and build never compile them.
   */
  openSession: () => Promise<ClusterSession>
  /** The process environment (helmfile `from: env` vars). */
  env: Readonly<Record<string, string | undefined>>
  /** Called with every secret value met (the action masks it in the runner log). */
  registerSecret: (value: string) => void
  log: EngineLog
  /** Time for State timestamps and the apply's waits. */
  clock: Clock
  /**
   * Tazuna's artifact cache and what else `type: oras` pulls need; absent when the process
   * has no cache directory (neither XDG_CACHE_HOME nor HOME), and oras manifests then fail.
   */
  oras?: Pick<OrasContext, 'cache' | 'insecureHttp' | 'dockerConfig'>
  /** Render records; absent: every manifest renders (a twin engine, tests). */
  records?: RenderRecords
  /**
   * Cancels the run when it aborts: no cluster request starts after it, renders in flight are
   * abandoned, a held run lock is still released (src/engine/cancellation.ts).
   */
  signal?: AbortSignal
  /**
   * Registers work the process must finish before it stops at once (a second signal, or the
   * grace period after the first ran out): the run lock's release. Returns its unregistration.
   * Absent: nothing stops the process early (tests, the command line's read-only commands).
   */
  beforeExit?: (task: () => Promise<void>) => () => void
}
