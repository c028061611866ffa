/**
 * The runners the action runs on (README.md#supported-runners). Windows is refused at the
 * start: Go's `js/wasm`, which renders there, sees paths as POSIX, so a drive-letter checkout
 * (`C:\repo`) would reach kustomize and Helm as a relative name and render the wrong files or
 * none. Refusing before the inputs are read keeps a Windows job from sending any request.
 */

/** The one line a run on `platform` (Node's `process.platform`) fails with; undefined when supported. */
export function unsupportedRunnerMessage(platform: string): string | undefined {
  if (platform !== 'win32') return undefined
  return (
    'tazuna-action does not run on Windows runners: its WebAssembly renderers read a ' +
    'drive-letter path (C:\\...) as a relative one. Use runs-on: ubuntu-latest, ' +
    'ubuntu-24.04-arm or a macOS runner (README.md#supported-runners).'
  )
}
