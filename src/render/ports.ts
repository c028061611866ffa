/**
 * What rendering takes from the world, as small ports: a command runner for kustomize, kubectl,
 * helm and op, and the file access the renderers need. The implementations live in
 * src/adapters/ (command-runner.ts, files/node-files.ts); tests may pass their own.
 */
import type { JsonObject } from '../go/yaml.js'

/** What a finished program left behind. */
export interface CommandResult {
  exitCode: number
  stdout: string
  stderr: string
}

/** Where and how to run a program. `env` entries are added to (override) the inherited ones. */
export interface CommandOptions {
  cwd?: string
  env?: Record<string, string>
  /** Written to the program's stdin, then stdin is closed. */
  input?: string
}

/**
 * Runs a program to completion. Resolves with its exit code and output whatever the exit code
 * is; rejects with CommandNotFoundError when `cmd` is not an executable on PATH (or at the given
 * path), and with the spawn error for anything else that prevents it from starting.
 */
export interface CommandRunner {
  run(cmd: string, args: readonly string[], opts?: CommandOptions): Promise<CommandResult>
}

/** The program to run does not exist; callers turn this into "install X" advice. */
export class CommandNotFoundError extends Error {
  override name = 'CommandNotFoundError'
  constructor(readonly command: string) {
    super(`${command}: executable not found`)
  }
}

/** What is at a path, as far as the renderers care. */
export type FileKind = 'file' | 'directory' | 'other'

/** The files rendering reads (manifests, envfiles, helmfiles, values) and its temporary files. */
export interface BuildFiles {
  /** The file's text; rejects with the Node error (its `code` says why, e.g. ENOENT). */
  readText(path: string): Promise<string>
  /** What is at `path`, or undefined when nothing is there (or it cannot be looked at). */
  kindOf(path: string): Promise<FileKind | undefined>
  /** A new private directory for temporary files (under the runner's temp dir or the OS's). */
  makeTempDir(prefix: string): Promise<TempDir>
}

/** A private temporary directory. */
export interface TempDir {
  path: string
  /** Writes `text` to `name` inside the directory, readable by this user only; returns its path. */
  writePrivate(name: string, text: string): Promise<string>
  /** Deletes the directory and everything in it; never rejects for a missing directory. */
  remove(): Promise<void>
}

/**
 * The render module (docs/renderers.md): kustomize's krusty and Helm's SDK at Tazuna's versions,
 * compiled to WebAssembly and run in this process, so rendering needs no tool on the runner.
 * Each call rejects with RenderModuleError carrying the Go error text.
 */
/** One finding of the schema check: the field path as the server writes it, and its words. */
export interface SchemaFinding {
  path: string
  message: string
}

export interface RenderModule {
  /** `kustomize build` as Tazuna runs it: krusty with default options on `dir`. */
  kustomize(dir: string): Promise<string>
  /** One helmfile release as Tazuna renders it (client-only install dry run): its manifest. */
  helm(release: HelmReleaseRender): Promise<string>
  /**
   * The renderers of the programs loaded so far, e.g. `helm.sh/helm/v3` → `v3.21.4`;
   * undefined while nothing rendered.
   */
  loaded(): RendererVersions | undefined
  /**
   * The documents of a text this module rendered, decoded by Go as Tazuna decodes them
   * (docs/compatibility.md#yaml-to-objects step 1), when the program decoded them: the engine
   * then need not parse the YAML again (docs/renderers.md#objects-from-the-native-program).
   */
  documentsOf?(text: string): readonly (JsonObject | null)[] | undefined
  /**
   * The documents of any text (a helmfile manifest's joined releases), decoded as documentsOf's
   * are by a native program this module already runs; undefined when none runs or the text does
   * not decode (the engine's own decoding then reports where).
   */
  decode?(text: string): Promise<readonly (JsonObject | null)[] | undefined>
  /**
   * Every question the render of a text this module made asked the file system, as [kind,
   * absolute path] (docs/renderers.md#reusing-a-render); undefined when not known (Helm).
   */
  readsOf?(text: string): readonly (readonly [kind: string, file: string])[] | undefined
  /**
   * What a Helm render this module made depended on besides its request; undefined when not
   * known (not rendered here, or a chart on disk loaded by WebAssembly, whose reads go unnoted).
   */
  helmFactsOf?(release: HelmReleaseRender): HelmRenderFacts | undefined
  /**
   * Each object checked against the cluster's /openapi/v3 documents (by group/version) as the
   * API server's server-side apply converts a patch, and a custom resource against its
   * CustomResourceDefinition (among `crds`) as the server validates it: required fields, enums,
   * formats, patterns and x-kubernetes-validations rules (docs/risks.md#schema-findings), by the
   * Helm program; null for an object neither a document nor a CRD declares the kind of.
   */
  checkSchema?(
    schemas: Readonly<Record<string, string>>,
    objects: readonly JsonObject[],
    crds?: readonly JsonObject[]
  ): Promise<(SchemaFinding[] | null)[]>
  /** Starts loading the program checkSchema will call, before it asks (natively only). */
  prepareCheck?(): void
  /**
   * Starts loading what rendering manifests of these types needs, before the first render asks
   * (a failure is reported by that render).
   */
  prepare?(types: readonly string[]): void
  /**
   * Makes ready, without starting, what rendering manifests of these types needs, where that
   * costs this thread nothing (a native program unpacked by another process): for a run that
   * renders only what its records do not cover, and may render nothing.
   */
  unpackAhead?(types: readonly string[]): void
  /** Makes ready, as unpackAhead does, the program checkSchema will call. */
  unpackCheckAhead?(): void
  /**
   * Resolves once the renders asked for so far are with a running program, or at once when no
   * program is starting. The engine waits for it before loading the cluster client, which holds
   * its thread for a while: the program renders meanwhile (docs/ARCHITECTURE.md#rendering-ahead).
   */
  underway?(): Promise<void>
  /**
   * The run asks nothing more of the renders still pending (renders started early and never
   * taken, src/render/kustomize/early.ts): they no longer keep the process alive. A later call
   * does again.
   */
  letGo?(): void
}

/** Module path → version of what renders (and `go` → the Go version that built it). */
export type RendererVersions = Readonly<Record<string, string>>

/** One release for RenderModule.helm. */
/** What a Helm render depended on besides its request (docs/renderers.md#helm-records). */
export interface HelmRenderFacts {
  /** The chart load's questions to the file system, as [kind, absolute path]; none for bytes. */
  reads: readonly (readonly [kind: string, file: string])[]
  /** The functions the chart calls whose result is not a function of the inputs (`now`). */
  volatile: readonly string[]
}

export interface HelmReleaseRender {
  name: string
  /** As written; empty stays empty (docs/compatibility.md#empty-release-namespace). */
  namespace: string
  /** A chart directory or .tgz on disk, or the bytes of a downloaded .tgz. */
  chart: { path: string } | { archive: Uint8Array }
  /** Values sources in merge order: YAML or JSON text, and what an error calls it. */
  values: readonly { name: string; text: string }[]
  includeCRDs: boolean
  /** Empty: Helm's library default. */
  kubeVersion: string
  /** Appended to Helm's default API versions. */
  apiVersions: readonly string[]
}

/** The limits of one render (docs/reliability.md#render-limits). */
export interface RenderLimits {
  /** Input render-timeout. */
  timeoutMs: number
  /** Input max-render-bytes. */
  maxOutputBytes: number
  /** Input max-render-memory: a render program's WebAssembly memory. */
  maxMemoryBytes: number
}

/** The render module refused or failed a render; `message` is Go's error text. */
export class RenderModuleError extends Error {
  override name = 'RenderModuleError'
}

export {
  HttpTransportError,
  type HttpClient,
  type HttpRequestOptions,
  type HttpResponse
} from '../http/ports.js'
