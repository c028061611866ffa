/**
 * What pulling a `type: oras` artifact needs from the world (docs/compatibility.md#oras): the
 * local artifact cache Tazuna shares (`blobs/<digest>/`, `refs/<reference>`), an HTTP client
 * that skips TLS verification for `insecureSkipVerify`, and the Docker config file. The
 * adapters are in src/adapters/files/oras-cache.ts and src/adapters/engine-ports.ts.
 */
import type { HttpClient } from '../../http/ports.js'
import type { ArchiveEntry } from './archive.js'

/**
 * Tazuna's artifact cache under `$XDG_CACHE_HOME/tazuna/oras` or `$HOME/.cache/tazuna/oras`.
 * Keys are already sanitised (digest `sha256-<hex>`, reference with `/`, `:`, `@` as `_`).
 */
export interface OrasCache {
  /** The cache directory, for messages. */
  root: string
  /** The digest a reference was last resolved to, or undefined. */
  readRef(refKey: string): Promise<string | undefined>
  /** Records the digest of a reference (atomically replaced). */
  writeRef(refKey: string, digest: string): Promise<void>
  /**
   * The extracted directory of a digest when the cache holds it, and from then on readable by
   * the renderers; undefined when it does not.
   */
  blobDir(digestKey: string): Promise<string | undefined>
  /** Removes a digest's directory (`--no-cache`). */
  removeBlob(digestKey: string): Promise<void>
  /**
   * Writes the entries into a new directory inside the cache and moves it to the digest's
   * place (another process that got there first wins); returns the directory, readable by the
   * renderers. Rejects, leaving nothing behind, when an entry cannot be written or a symlink
   * resolves outside the directory.
   */
  storeBlob(digestKey: string, entries: readonly ArchiveEntry[]): Promise<string>
}

/** Where to pull from and how (Tazuna's `--offline` and `--no-cache`). */
export interface OrasPullMode {
  offline: boolean
  noCache: boolean
}

/** A Docker config file (`auths`, `credsStore`, `credHelpers`), as read from disk. */
export interface DockerConfigFile {
  path: string
  text: string
}

/** Everything an oras manifest needs besides the render context. */
export interface OrasContext {
  cache: OrasCache
  mode: OrasPullMode
  /** An HTTP client that does not verify TLS certificates (`insecureSkipVerify: true`). */
  insecureHttp: HttpClient
  /**
   * The Docker config file (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`), or
   * undefined when there is none.
   */
  dockerConfig(): Promise<DockerConfigFile | undefined>
  warn(message: string): void
}
