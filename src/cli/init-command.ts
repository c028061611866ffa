/**
 * `init`: writes a starter tazuna.yaml at `-f` (default `tazuna.yaml`), byte for byte what
 * Tazuna's `tazuna init` writes (docs/compatibility.md#command-line-and-kubeconfig): an
 * includes-based skeleton with an empty `manifests` list, pinning
 * `spec.minimumSupportedTazunaVersion` to this program's version (`0.0.0` when it is not semver).
 * An existing file is left alone unless `--force`.
 */
import { parseSemVer } from '../config/min-version.js'
import { TAZUNA_API_VERSION, TAZUNA_KIND } from '../config/validate.js'
import type { CliCommand } from './command.js'

/**
 * The version `init` pins: `version` normalized as Masterminds/semver's Version.String() prints
 * it (no `v`, minor and patch filled in, pre-release and build metadata kept), or `0.0.0`.
 */
export function initialMinimumVersion(version: string): string {
  const text = version.trim()
  const parsed = parseSemVer(text)
  if (parsed === undefined) return '0.0.0'
  const suffix = /[-+].*$/.exec(text.replace(/^v/, '').replace(/^[0-9.]+/, ''))?.[0] ?? ''
  return `${parsed.major}.${parsed.minor}.${parsed.patch}${suffix}`
}

/**
 * The skeleton's text. Its comments are Tazuna's, in Japanese, so both tools write the same
 * bytes: the minimum version is required to process the file, and lower versions stop with an
 * error to prevent a wrong apply; add `includes` entries to `manifests` as in the example.
 */
export function initTemplate(minimumVersion: string): string {
  return [
    `apiVersion: ${TAZUNA_API_VERSION}`,
    `kind: ${TAZUNA_KIND}`,
    'spec:',
    '  # この tazuna.yaml を処理するのに必要な tazuna の最小バージョン (semver) です。',
    '  # これを下回る tazuna バイナリは、誤適用を防ぐためエラーで終了します。',
    `  minimumSupportedTazunaVersion: "${minimumVersion}"`,
    '  # includes で各コンポーネントの tazuna.yaml を読み込みます。',
    '  # 下の例のように manifests に includes エントリを追加してください。',
    '  #',
    '  #   manifests:',
    '  #     - name: infra',
    '  #       includes:',
    '  #         - path: ./infra/tazuna.yaml',
    '  #         - path: ./addons/tazuna.yaml',
    '  manifests: []',
    ''
  ].join('\n')
}

export const initCommand: CliCommand = {
  name: 'init',
  summary: 'Generate a starter tazuna.yaml (refuses to overwrite one without --force)',
  options: { force: { type: 'boolean', default: false } },
  async run({ io, flags, options, args, version, createText }) {
    if (args.length > 0) throw new Error(`unknown command "${args[0]}" for "tazuna-action init"`)
    const file = flags.filePath
    const text = initTemplate(initialMinimumVersion(version))
    const written = await createText(file, text, { overwrite: options.force === true })
    if (!written) throw new Error(`${file} already exists; pass --force to overwrite`)
    io.stdout(`created: ${file}\n`)
    return 0
  }
}
