/**
 * The part of a rendered helmfile that Tazuna reads (docs/compatibility.md#helmfile step 4):
 * `repositories` and `releases`. Everything else a real helmfile may hold (environments, bases,
 * needs, hooks, set, helmDefaults, ...) is ignored, as upstream ignores it.
 */
import {
  goAny,
  goBool,
  goSlice,
  goString,
  goStruct,
  unmarshalGoFile,
  type GoType
} from '../../go/json.js'
import type { JsonValue } from '../../go/yaml.js'

/** `repositories[]`: an alias for `<alias>/<chart>` chart references. */
export interface HelmRepository {
  name: string
  url: string
  username: string
  password: string
  oci: boolean
}

/**
 * `releases[]`. `namespace` is kept as written: "" when omitted
 * (docs/compatibility.md#empty-release-namespace).
 */
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
 * The Go struct behind HelmfileSpec, for decodeGo. Its type names (printed in Go's messages)
 * are guesses, like the api/v1 ones in src/config/schema-go.ts.
 */
const helmfileGoType: GoType = goStruct('Helmfile', {
  repositories: goSlice(
    goStruct('HelmfileRepository', {
      name: goString,
      url: goString,
      username: goString,
      password: goString,
      oci: goBool
    })
  ),
  releases: goSlice(
    goStruct('HelmfileRelease', {
      name: goString,
      namespace: goString,
      chart: goString,
      version: goString,
      values: goSlice(goAny)
    })
  )
})

/**
 * Parses rendered helmfile text like sigs.k8s.io/yaml.Unmarshal: only the first YAML document
 * counts, YAML numbers and booleans become strings in string fields, and type mismatches
 * throw a ConfigError with Go's messages, each naming `file` and the line.
 */
export function parseHelmfileSpec(text: string, file: string): HelmfileSpec {
  return unmarshalGoFile(text, file, helmfileGoType, 'helmfile') as HelmfileSpec
}
