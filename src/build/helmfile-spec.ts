/**
 * The part of a rendered helmfile that Tazuna reads (spec §4.2 step 4): `repositories` and
 * `releases`. Everything else a real helmfile may hold (environments, bases, needs, hooks, set,
 * helmDefaults, ...) is ignored, as upstream ignores it.
 */
import { ConfigError } from '../errors.js'
import { parseYamlDocuments, type JsonValue, type YamlDocument } from '../yaml/go-yaml.js'
import {
  DecodeError,
  decodeBool,
  decodeList,
  decodeObject,
  decodeString,
  goField
} from './go-decode.js'

/** `repositories[]`: an alias for `<alias>/<chart>` chart references. */
export interface HelmRepository {
  name: string
  url: string
  username: string
  password: string
  oci: boolean
}

/** `releases[]`. `namespace` is kept as written: "" when omitted (spec §13.4). */
export interface HelmRelease {
  name: string
  namespace: string
  chart: string
  version: string
  values: JsonValue[]
}

/** What Tazuna's helmfile subset knows about a helmfile. */
export interface HelmfileSpec {
  repositories: HelmRepository[]
  releases: HelmRelease[]
}

/**
 * Parses rendered helmfile text. Like sigs.k8s.io/yaml.Unmarshal only the first YAML document
 * counts. Type mismatches throw a ConfigError naming `file` and the line.
 */
export function parseHelmfileSpec(text: string, file: string): HelmfileSpec {
  const doc = parseYamlDocuments(text, file)[0]
  if (doc === undefined) return { repositories: [], releases: [] }
  try {
    return decodeHelmfile(doc.value)
  } catch (error) {
    if (error instanceof DecodeError) throw decodeProblem(error, doc, file)
    throw error
  }
}

function decodeHelmfile(value: JsonValue): HelmfileSpec {
  const root = decodeObject(value, ['(helmfile)'])
  if (root === undefined) return { repositories: [], releases: [] }
  const repositories = decodeList(goField(root, 'repositories'), ['repositories']).map(
    (item, i): HelmRepository => {
      const path = ['repositories', i]
      const repo = decodeObject(item, path) ?? {}
      return {
        name: decodeString(goField(repo, 'name'), [...path, 'name']),
        url: decodeString(goField(repo, 'url'), [...path, 'url']),
        username: decodeString(goField(repo, 'username'), [...path, 'username']),
        password: decodeString(goField(repo, 'password'), [...path, 'password']),
        oci: decodeBool(goField(repo, 'oci'), [...path, 'oci'])
      }
    }
  )
  const releases = decodeList(goField(root, 'releases'), ['releases']).map(
    (item, i): HelmRelease => {
      const path = ['releases', i]
      const rel = decodeObject(item, path) ?? {}
      return {
        name: decodeString(goField(rel, 'name'), [...path, 'name']),
        namespace: decodeString(goField(rel, 'namespace'), [...path, 'namespace']),
        chart: decodeString(goField(rel, 'chart'), [...path, 'chart']),
        version: decodeString(goField(rel, 'version'), [...path, 'version']),
        values: decodeList(goField(rel, 'values'), [...path, 'values'])
      }
    }
  )
  return { repositories, releases }
}

function decodeProblem(error: DecodeError, doc: YamlDocument, file: string): ConfigError {
  const path = error.path.filter((step) => step !== '(helmfile)')
  return new ConfigError([
    { file, line: doc.lineOf(path) ?? doc.line, message: `invalid helmfile: ${error.message}` }
  ])
}
