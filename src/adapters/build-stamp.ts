/** Reads the build stamp scripts/bundle.sh writes next to the bundle (src/cli/version.ts). */
import { readFileSync } from 'node:fs'
import path from 'node:path'

/** The text of `<codeDir>/build-info.json`, or undefined when there is none (running src/). */
export function readBuildStamp(codeDir: string): string | undefined {
  try {
    return readFileSync(path.join(codeDir, 'build-info.json'), 'utf8')
  } catch {
    return undefined
  }
}
