/**
 * The Go types behind schema.ts, for decoding with encoding/json semantics (go-json.ts). Type
 * names appear in Go's messages (`Go struct field Manifest.spec.manifests.name`); they follow
 * the spec's names where it gives them (TazunaSpec, EnvironmentSpec, ManifestHelmfile,
 * HelmFileVar, ManifestORAS, TestPluginSpec, ProviderConfig), the rest are best guesses.
 */
import {
  goAny as any,
  goBool as bool,
  goInt as int,
  goMap as map,
  goPointer as pointer,
  goSlice as slice,
  goString as str,
  goStruct as struct
} from './json.js'

const kustomize = { defaultNamespace: str }

const helmfileVar = struct('HelmFileVar', {
  from: str,
  env: str,
  static: str,
  staticSlice: slice(any),
  staticMap: map(any),
  op: pointer('HelmFileVarOP', { vault: str, item: str, field: str, key: str })
})

const helmfile = {
  vars: map(helmfileVar),
  includeCRDs: bool,
  defaultNamespace: str,
  extraValueFiles: slice(str),
  wait: bool,
  timeoutSeconds: int,
  kubeVersion: str
}

const resource = struct('TestPluginResource', { apiVersion: str, kind: str })

const testPlugin = struct('TestPluginSpec', {
  type: str,
  minConsecutiveSuccessCount: int,
  minConsecutiveFailureCount: int,
  timeoutSeconds: int,
  intervalSeconds: int,
  waitUntil: pointer('WaitUntilSpec', { resource, namespace: str, name: str, condition: str }),
  existNonExist: pointer('ExistNonExistSpec', {
    resource,
    namespace: str,
    name: str,
    shouldExist: bool
  })
})

const oras = pointer('ManifestORAS', {
  reference: str,
  target: str,
  plainHTTP: bool,
  insecureSkipVerify: bool,
  auth: pointer('ORASAuth', { username: str, password: str }),
  delegate: struct('ORASDelegate', {
    type: str,
    helmfile: pointer('ManifestHelmfile', helmfile),
    kustomize: pointer('ManifestKustomize', kustomize)
  })
})

/** One `spec.manifests[]` entry. */
export const manifestGoType = struct('Manifest', {
  name: str,
  description: str,
  includes: slice(struct('Include', { path: str })),
  type: str,
  path: str,
  tags: slice(str),
  dependsOn: slice(str),
  kustomize: pointer('ManifestKustomize', kustomize),
  helmfile: pointer('ManifestHelmfile', helmfile),
  genesisSecret: pointer('ManifestGenesisSecret', {}),
  oras,
  tests: slice(testPlugin)
})

const environment = struct('EnvironmentSpec', {
  context_matches: slice(str),
  context_match_mode: str
})

const provider = struct('ProviderConfig', {
  name: str,
  type: str,
  onepassword: pointer('OnePasswordProvider', {}),
  envfile: pointer('EnvfileProvider', { path: str })
})

/** The whole tazuna.yaml (and every include file, of which only spec.manifests is used). */
export const tazunaGoType = struct('Tazuna', {
  apiVersion: str,
  kind: str,
  spec: struct('TazunaSpec', {
    minimumSupportedTazunaVersion: str,
    context_matches: slice(str),
    context_match_mode: str,
    environments: map(environment),
    manifests: slice(manifestGoType),
    tests: slice(testPlugin),
    providers: slice(provider)
  })
})

/**
 * A GenesisSecret file (docs/compatibility.md#genesissecret), read by `check` (op:// URIs,
 * docs/compatibility.md#check) and by Build. The kubernetesSecret output's unused `context` field
 * is left out: its Go type is not documented, and an unknown field is ignored rather than guessed
 * wrong.
 */
export const genesisSecretGoType = struct('GenesisSecret', {
  spec: struct('GenesisSecretSpec', {
    provider: str,
    secrets: slice(
      struct('GenesisSecretSecret', {
        uri: str,
        preferLabel: bool,
        items: map(struct('GenesisSecretItem', { mapTo: str }))
      })
    ),
    static: map(str),
    outputs: slice(
      struct('GenesisSecretOutput', {
        stdout: pointer('GenesisSecretStdout', {}),
        kubernetesSecret: pointer('GenesisSecretKubernetesSecret', {
          namespace: str,
          name: str,
          labels: map(str),
          annotations: map(str),
          type: str
        })
      })
    )
  })
})
