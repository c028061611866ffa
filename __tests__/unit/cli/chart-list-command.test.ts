// `chart list`'s table (src/cli/chart-list-command.ts), as Tazuna's cmd/chart_list.go prints it:
// `-` for an empty chart, version or latest version, `(error)` with a `warn:` line (Go's %q for
// the release) when the latest version could not be asked. Column layout: Go's tabwriter,
// whose expected bytes here were printed by Go (__tests__/oracle/tabwriter, second and third case).
import { expect, it } from '@jest/globals'
import { renderChartList } from '../../../src/cli/chart-list-command.js'

it('prints the four columns without --check-latest', () => {
  const { text, warnings } = renderChartList(
    [
      {
        manifest: 'apps',
        chart: 'repo/app',
        release: 'app',
        file: 'charts/helmfile.yaml',
        version: '1.2.3'
      },
      {
        manifest: 'apps',
        chart: './local',
        release: 'web',
        file: 'charts/helmfile.yaml',
        version: ''
      }
    ],
    false
  )
  expect(text).toBe(
    'CHART     RELEASE  FILE                  VERSION\n' +
      'repo/app  app      charts/helmfile.yaml  1.2.3\n' +
      './local   web      charts/helmfile.yaml  -\n'
  )
  expect(warnings).toEqual([])
})

it('adds LATEST with --check-latest, `(error)` and a warning for a source that failed', () => {
  const { text, warnings } = renderChartList(
    [
      {
        manifest: 'm',
        chart: 'oci://127.0.0.1:5000/charts/app',
        release: 'app',
        file: '/abs/helmfile.yaml.gotmpl',
        version: '1.0.0',
        latest: { error: 'OCI chart 127.0.0.1:5000/charts/app: failed to list tags: refused' }
      },
      { manifest: '', chart: '', release: '', file: 'x', version: '', latest: { version: '' } }
    ],
    true
  )
  expect(text).toBe(
    'CHART                            RELEASE  FILE                       VERSION  LATEST\n' +
      'oci://127.0.0.1:5000/charts/app  app      /abs/helmfile.yaml.gotmpl  1.0.0    (error)\n' +
      '-                                         x                          -        -\n'
  )
  expect(warnings).toEqual([
    'warn: failed to resolve latest for release "app": OCI chart 127.0.0.1:5000/charts/app: failed to list tags: refused\n'
  ])
})

it('prints only the header when there is no helmfile release', () => {
  expect(renderChartList([], true).text).toBe('CHART  RELEASE  FILE  VERSION  LATEST\n')
})
