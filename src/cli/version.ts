/**
 * What `tazuna-action version` and `--version` print: Tazuna's line (`tazuna <version> (commit
 * <commit>, built <date>, <os>/<arch>)`, docs/compatibility.md#command-line-and-kubeconfig) with
 * our name, package.json's version, and the commit and date scripts/source-commit.mjs stamped
 * into dist/build-info.json.
 */

/** What a build knows about itself. */
export interface BuildInfo {
  version: string
  /** The commit that last changed the sources of the bundle, or `none` (not stamped). */
  commit: string
  /** That commit's date, RFC 3339 in UTC, or `unknown`. */
  date: string
  /** Node's `process.platform` and `process.arch`. */
  platform: string
  arch: string
}

/** The version line, newline included; the platform in Go's names, as Tazuna prints it. */
export function versionLine(info: BuildInfo): string {
  const platform = `${goOs(info.platform)}/${goArch(info.arch)}`
  return `tazuna-action ${info.version} (commit ${info.commit}, built ${info.date}, ${platform})\n`
}

/** Node's platform as Go's GOOS (`win32` is `windows`; the others share their names). */
function goOs(platform: string): string {
  return platform === 'win32' ? 'windows' : platform
}

/** Node's arch as Go's GOARCH. */
function goArch(arch: string): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    ia32: '386',
    ppc64: 'ppc64le',
    mipsel: 'mipsle'
  }
  return names[arch] ?? arch
}

/**
 * dist/build-info.json's fields, or `none` and `unknown` (Tazuna's defaults for a build without
 * them) for a missing or malformed file, as when running from src/.
 */
export function parseBuildStamp(text: string | undefined): Pick<BuildInfo, 'commit' | 'date'> {
  const fallback = { commit: 'none', date: 'unknown' }
  if (text === undefined) return fallback
  try {
    const stamp = JSON.parse(text) as { commit?: unknown; date?: unknown }
    return {
      commit: typeof stamp.commit === 'string' && stamp.commit !== '' ? stamp.commit : 'none',
      date: typeof stamp.date === 'string' && stamp.date !== '' ? stamp.date : 'unknown'
    }
  } catch {
    return fallback
  }
}
