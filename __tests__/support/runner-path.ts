/**
 * A PATH like a bare runner's, without any renderer: node and every program of /usr/bin and
 * /bin except helm, kustomize and kubectl (which embeds kustomize). The e2e runs use it to
 * prove the action renders everything itself (docs/renderers.md).
 */
import { existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** The programs no e2e run may find. */
export const RENDERER_PROGRAMS = ['helm', 'kustomize', 'kubectl'] as const

let bin: string | undefined

/** `<node's dir>:<a dir of links to the system's programs, renderers left out>`. */
export function pathWithoutRenderers(): string {
  if (bin === undefined) {
    bin = mkdtempSync(join(tmpdir(), 'tazuna-bare-bin-'))
    for (const dir of ['/usr/bin', '/bin']) {
      if (!existsSync(dir)) continue
      for (const name of readdirSync(dir)) {
        if ((RENDERER_PROGRAMS as readonly string[]).includes(name)) continue
        if (existsSync(join(bin, name))) continue
        symlinkSync(join(dir, name), join(bin, name))
      }
    }
  }
  return `${dirname(process.execPath)}:${bin}`
}
