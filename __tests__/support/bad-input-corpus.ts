// The bad-input corpus (docs/reliability.md#hostile-input): hostile or broken repositories, each
// written into its own directory and run through `check` or `build`. Each case says which file
// (and line, where one exists) the error must name. Shared by
// integration/bad-input.test.ts (the assertions) and bench/bad-input-rss.ts (peak memory of the
// worst cases). Only node builtins and plain TypeScript here: Node runs it with type stripping.
// Cases are renderer-agnostic: they fail before a renderer runs, or on input any renderer must
// refuse (a kustomization that is not YAML), and assert only what any renderer must name.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** One hostile input. */
export interface BadInputCase {
  id: string
  command: 'check' | 'build'
  /** Writes the repository under `dir` (a `repo/` with a `.git`, and `outside/`). */
  write(repo: string, outside: string): void
  /** The file the error must name (relative to the repository), and its line when known. */
  file: string
  line?: number
  /** Text the error must contain. */
  says: RegExp
  /** Worth measuring peak memory for (large or expensive input). */
  heavy?: boolean
}

const MiB = 1024 * 1024

/** A valid one-manifest kustomize repository's tazuna.yaml body, for variations. */
function kustomizeManifest(name = 'app', extra = ''): string {
  return `    - name: ${name}\n      type: kustomize\n      path: ./${name}\n${extra}`
}

function config(manifests: string, head = ''): string {
  return `apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\n${head}spec:\n  manifests:\n${manifests}`
}

function write(repo: string, file: string, content: string | Buffer): void {
  const full = path.join(repo, file)
  mkdirSync(path.dirname(full), { recursive: true })
  writeFileSync(full, content)
}

/** A kustomize folder with one ConfigMap. */
function app(repo: string, name = 'app'): void {
  write(repo, `${name}/kustomization.yaml`, 'resources:\n  - cm.yaml\n')
  write(
    repo,
    `${name}/cm.yaml`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`
  )
}

function tazuna(content: string | Buffer, line?: number, says = /./): Omit<BadInputCase, 'id'> {
  return {
    command: 'check',
    write: (repo) => write(repo, 'tazuna.yaml', content),
    file: 'tazuna.yaml',
    ...(line === undefined ? {} : { line }),
    says
  }
}

function aliasBomb(levels: number, width: number): string {
  const lines = ['x0: &x0 [lol, lol]']
  for (let i = 1; i <= levels; i++) {
    lines.push(`x${i}: &x${i} [${Array.from({ length: width }, () => `*x${i - 1}`).join(', ')}]`)
  }
  return `${lines.join('\n')}\n`
}

function nestedMappings(depth: number): string {
  let out = 'spec:\n  manifests: []\n  deep:\n'
  for (let i = 0; i < depth; i++) out += `${'  '.repeat(i + 2)}k${i}:\n`
  return out
}

function manyManifests(count: number, dependsOn: (i: number) => string): string {
  let out = ''
  for (let i = 0; i < count; i++) {
    out += `    - name: m${i}\n      type: kustomize\n      path: ./app\n      dependsOn: [${dependsOn(i)}]\n`
  }
  return config(out)
}

const invalidName = /name .* contains invalid characters|invalid characters/

/** Every case; ids are unique and stable (test names and the RSS table use them). */
export function badInputCases(): BadInputCase[] {
  const cases: Record<string, Omit<BadInputCase, 'id'>> = {
    // tazuna.yaml: syntax and encoding
    'not-a-mapping': tazuna('- a\n- b\n', 1, /cannot unmarshal|mapping|expected/i),
    'scalar-document': tazuna('just a string\n', 1, /cannot unmarshal|mapping|expected/i),
    'bad-indentation': tazuna('spec:\n  manifests:\n - name: a\n   type: x\n', 3, /invalid YAML/),
    'unclosed-flow': tazuna('spec:\n  manifests: [\n', 3, /invalid YAML/),
    'tab-indentation': tazuna('spec:\n\tmanifests: []\n', 2, /invalid YAML/),
    'nul-byte': tazuna(config(kustomizeManifest('a\u0000b')), 5, /control character U\+0000/),
    'bell-character': tazuna(config(kustomizeManifest('a\u0007b')), 5, /control character U\+0007/),
    'invalid-utf8-in-name': tazuna(
      Buffer.concat([
        Buffer.from(config('    - name: a')),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('b\n      type: kustomize\n      path: ./a\n')
      ]),
      5,
      invalidName
    ),
    'utf16-file': tazuna(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(config(''), 'utf16le')]),
      undefined,
      /./
    ),
    'binary-file': tazuna(
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)),
      undefined,
      /invalid YAML|control character|cannot unmarshal/
    ),
    'lone-surrogate-escape': tazuna(
      config(kustomizeManifest('app', '      description: "\\ud800"\n')),
      undefined,
      /./
    ),
    // tazuna.yaml: size, nesting, aliases
    'alias-bomb-7-levels': {
      ...tazuna(aliasBomb(7, 9), undefined, /excessive aliasing/),
      heavy: true
    },
    'alias-bomb-9-levels': {
      ...tazuna(aliasBomb(9, 9), undefined, /excessive aliasing/),
      heavy: true
    },
    'alias-self-reference': tazuna('a: &a [*a]\nspec: {}\n', 1, /invalid YAML|alias|anchor/i),
    'alias-undefined': tazuna('a: *nope\nspec: {}\n', 1, /invalid YAML|alias|anchor/i),
    'merge-key-bomb': {
      ...tazuna(
        `a0: &a0 {k: v}\n${Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1}\n  ${Array.from({ length: 9 }, (_, j) => `<<: *a${i}\n  x${j}: *a${i}`).join('\n  ')}`).join('\n')}\nspec: {}\n`,
        undefined,
        /invalid YAML|excessive|already/i
      ),
      heavy: true
    },
    'deep-flow-nesting': {
      ...tazuna(
        `spec:\n  manifests: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`,
        2,
        /nested too deeply/
      ),
      heavy: true
    },
    'deep-block-nesting': {
      ...tazuna(nestedMappings(1500), undefined, /nested too deeply/),
      heavy: true
    },
    'huge-file-over-limit': {
      ...tazuna(
        `spec:\n  manifests: []\n${`# ${'x'.repeat(98)}\n`.repeat(Math.ceil((17 * MiB) / 101))}`,
        undefined,
        /16\.\d MiB|over the limit of 16 MiB/
      ),
      heavy: true
    },
    'huge-scalar-in-name': {
      ...tazuna(
        config(kustomizeManifest('a'.repeat(4 * MiB))),
        5,
        /is too long \(4194304 chars, max 240\)/
      ),
      heavy: true
    },
    'huge-key': {
      ...tazuna(`${'k'.repeat(2 * MiB)}: v\nspec: {}\n`, 1, /./),
      heavy: true
    },
    'huge-number-version': tazuna(
      `spec:\n  minimumSupportedTazunaVersion: 9999999999999999999999999999.0\n  manifests: []\n`,
      2,
      /minimumSupportedTazunaVersion|version/i
    ),
    'garbage-min-version': tazuna(
      `spec:\n  minimumSupportedTazunaVersion: "v1.x.<script>"\n  manifests: []\n`,
      2,
      /minimumSupportedTazunaVersion|version/i
    ),
    // tazuna.yaml: wrong types
    'manifests-is-string': tazuna(
      'spec:\n  manifests: everything\n',
      2,
      /cannot unmarshal|manifests/
    ),
    'manifests-is-map': tazuna('spec:\n  manifests: {a: 1}\n', 2, /cannot unmarshal|manifests/),
    'spec-is-list': tazuna('spec: [1, 2]\n', 1, /cannot unmarshal|spec/),
    'manifest-is-number': tazuna(config('    - 42\n'), 5, /cannot unmarshal|manifest/),
    'name-is-map': tazuna(
      config('    - name: {a: b}\n      type: kustomize\n'),
      5,
      /cannot unmarshal|name/
    ),
    'tags-is-map': tazuna(
      config(kustomizeManifest('app', '      tags: {a: b}\n')),
      8,
      /cannot unmarshal|tags/
    ),
    'type-is-list': tazuna(
      config('    - name: app\n      type: [kustomize]\n      path: ./app\n'),
      6,
      /cannot unmarshal|type/
    ),
    'huge-integer-type': tazuna(
      config('    - name: app\n      type: 123456789012345678901234567890\n'),
      6,
      /./
    ),
    // manifests
    'empty-name': tazuna(config(kustomizeManifest('""')), 5, /name/),
    'uppercase-name': tazuna(config(kustomizeManifest('App')), 5, invalidName),
    'name-with-slash': tazuna(config(kustomizeManifest('"a/b"')), 5, invalidName),
    'name-with-newline': tazuna(config(kustomizeManifest('"a\\nb"')), 5, invalidName),
    'long-name': tazuna(config(kustomizeManifest('a'.repeat(300))), 5, /name|long|characters/),
    'duplicate-names': tazuna(
      config(kustomizeManifest('app') + kustomizeManifest('app')),
      8,
      /duplicate|already|unique/i
    ),
    'unknown-type': tazuna(
      config('    - name: app\n      type: terraform\n      path: ./app\n'),
      6,
      /type|terraform/
    ),
    'missing-type': tazuna(config('    - name: app\n      path: ./app\n'), 5, /type/),
    'missing-path': tazuna(config('    - name: app\n      type: kustomize\n'), 5, /path/),
    // dependsOn
    'depends-on-unknown': tazuna(
      config(kustomizeManifest('app', '      dependsOn: [nope]\n')),
      5,
      /unknown manifest "nope"/
    ),
    'depends-on-self': tazuna(
      config(kustomizeManifest('app', '      dependsOn: [app]\n')),
      5,
      /itself|cycle|circular/i
    ),
    'depends-on-cycle': tazuna(
      config(
        kustomizeManifest('a', '      dependsOn: [b]\n') +
          kustomizeManifest('b', '      dependsOn: [a]\n')
      ),
      undefined,
      /cycle|circular/i
    ),
    'depends-on-long-cycle': {
      ...tazuna(
        manyManifests(300, (i) => `m${(i + 1) % 300}`),
        undefined,
        /cycle|circular/i
      ),
      heavy: true
    },
    'depends-on-string': tazuna(
      config(kustomizeManifest('app', '      dependsOn: other\n')),
      8,
      /cannot unmarshal|dependsOn/
    ),
    'depends-on-maps': tazuna(
      config(kustomizeManifest('app', '      dependsOn: [{name: x}]\n')),
      8,
      /cannot unmarshal|dependsOn/
    ),
    'depends-on-10k-unknown': {
      ...tazuna(
        config(
          kustomizeManifest(
            'app',
            `      dependsOn: [${Array.from({ length: 10_000 }, (_, i) => `n${i}`).join(', ')}]\n`
          )
        ),
        5,
        /unknown manifest/
      ),
      heavy: true
    },
    // paths that leave the repository or go nowhere
    'path-dot-dot-outside': {
      command: 'check',
      write: (repo, outside) => {
        app(outside, 'x')
        write(
          repo,
          'tazuna.yaml',
          config(kustomizeManifest('app').replace('./app', '../outside/x'))
        )
      },
      file: 'tazuna.yaml',
      line: 7,
      says: /outside the repository/
    },
    'path-absolute-outside': {
      command: 'check',
      write: (repo, outside) => {
        app(outside, 'x')
        write(
          repo,
          'tazuna.yaml',
          config(kustomizeManifest('app').replace('./app', path.join(outside, 'x')))
        )
      },
      file: 'tazuna.yaml',
      line: 7,
      says: /outside the repository/
    },
    'path-symlink-outside': {
      command: 'check',
      write: (repo, outside) => {
        app(outside, 'x')
        symlinkSync(path.join(outside, 'x'), path.join(repo, 'app'))
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'tazuna.yaml',
      line: 7,
      says: /outside the repository/
    },
    'path-symlink-loop': {
      command: 'build',
      write: (repo) => {
        symlinkSync(path.join(repo, 'loop-b'), path.join(repo, 'loop-a'))
        symlinkSync(path.join(repo, 'loop-a'), path.join(repo, 'loop-b'))
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app').replace('./app', './loop-a')))
      },
      file: 'loop-a',
      says: /too many links|loop|symlink/i
    },
    'path-missing': {
      ...tazuna(config(kustomizeManifest('nowhere')), undefined, /no such file or directory/i),
      file: 'nowhere',
      command: 'build'
    },
    'path-is-a-file': {
      command: 'build',
      write: (repo) => {
        write(repo, 'app', 'not a directory\n')
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'app',
      says: /not (a )?directory/i
    },
    // includes
    'include-outside': {
      command: 'check',
      write: (repo, outside) => {
        write(outside, 'inc.yaml', config(kustomizeManifest('x')))
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ../outside/inc.yaml\n`))
      },
      file: 'tazuna.yaml',
      says: /outside the repository/
    },
    'include-invalid-yaml': {
      command: 'check',
      write: (repo) => {
        app(repo)
        write(repo, 'inc.yaml', 'spec:\n  manifests:\n    - name: [unclosed\n')
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./inc.yaml\n`))
      },
      file: 'inc.yaml',
      line: 4,
      says: /invalid YAML/
    },
    'include-binary': {
      command: 'check',
      write: (repo) => {
        write(repo, 'inc.yaml', Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x89, 0x50, 0x4e, 0x47]))
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./inc.yaml\n`))
      },
      file: 'inc.yaml',
      line: 1,
      says: /control character|invalid YAML/
    },
    'include-self': {
      command: 'check',
      write: (repo) =>
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./tazuna.yaml\n`)),
      file: 'tazuna.yaml',
      says: /include|nest/i
    },
    'include-missing': tazuna(
      config(`    - includes:\n        - path: ./nope.yaml\n`),
      undefined,
      /nope\.yaml/
    ),
    'include-symlink-loop': {
      command: 'check',
      write: (repo) => {
        symlinkSync(path.join(repo, 'l2.yaml'), path.join(repo, 'l1.yaml'))
        symlinkSync(path.join(repo, 'l1.yaml'), path.join(repo, 'l2.yaml'))
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./l1.yaml\n`))
      },
      file: 'l1.yaml',
      says: /l1\.yaml/
    },
    'include-alias-bomb': {
      command: 'check',
      write: (repo) => {
        write(repo, 'inc.yaml', `${aliasBomb(8, 9)}spec:\n  manifests: []\n`)
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./inc.yaml\n`))
      },
      file: 'inc.yaml',
      says: /excessive aliasing/,
      heavy: true
    },
    'include-huge': {
      command: 'check',
      write: (repo) => {
        write(repo, 'inc.yaml', `spec:\n  manifests: []\n${'#'.repeat(17 * MiB)}\n`)
        write(repo, 'tazuna.yaml', config(`    - includes:\n        - path: ./inc.yaml\n`))
      },
      file: 'inc.yaml',
      says: /over the limit of 16 MiB/,
      heavy: true
    },
    // Go templates in tazuna.yaml (syntax only; runaway templates are bounded by render limits)
    'template-syntax-error': tazuna(`spec:\n  manifests: {{ if }}\n`, 2, /template|if/),
    'template-unclosed-action': tazuna(
      `spec:\n  manifests: {{ .Env\n`,
      undefined,
      /template|unclosed|unexpected/i
    ),
    'template-unknown-function': tazuna(
      `spec:\n  manifests: {{ exec "id" }}\n`,
      2,
      /function "exec" not defined/
    ),
    'template-undefined-fail': tazuna(
      `{{ fail "refused" }}\nspec: {}\n`,
      1,
      /function "fail" not defined/
    ),
    // Rendered input any renderer must refuse (build)
    'kustomization-invalid-yaml': {
      command: 'build',
      write: (repo) => {
        write(repo, 'app/kustomization.yaml', 'resources: [cm.yaml\n')
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'app',
      says: /kustomization|yaml/i
    },
    'kustomize-resource-binary': {
      command: 'build',
      write: (repo) => {
        write(repo, 'app/kustomization.yaml', 'resources:\n  - cm.yaml\n')
        write(
          repo,
          'app/cm.yaml',
          Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 31) % 256))
        )
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'app',
      says: /cm\.yaml|yaml/i
    },
    'kustomize-resource-missing': {
      command: 'build',
      write: (repo) => {
        write(repo, 'app/kustomization.yaml', 'resources:\n  - nope.yaml\n')
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'app',
      says: /nope\.yaml/
    },
    'kustomize-resource-outside': {
      command: 'build',
      write: (repo, outside) => {
        write(outside, 'cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n')
        write(repo, 'app/kustomization.yaml', `resources:\n  - ${path.join(outside, 'cm.yaml')}\n`)
        write(repo, 'tazuna.yaml', config(kustomizeManifest('app')))
      },
      file: 'app',
      says: /cm\.yaml|outside|security|root/i
    }
  }
  return Object.entries(cases).map(([id, c]) => ({ id, ...c }))
}
