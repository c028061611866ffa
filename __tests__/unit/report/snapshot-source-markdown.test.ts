import { describe, expect, it } from '@jest/globals'
import { renderSnapshotSection } from '../../../src/report/snapshot-source-markdown.js'
import type { DiffReport, SnapshotSource } from '../../../src/report/model.js'

const source: SnapshotSource = {
  ref: 'refs/tazuna-state/production',
  commit: 'a'.repeat(40),
  createdAt: '2026-01-02T03:04:05Z',
  writtenBy: 'https://github.com/acme/deploy/actions/runs/7',
  baseSha: 'a'.repeat(40)
}
const report = (extra: Partial<DiffReport>): DiffReport => ({
  config: 'tazuna.yaml',
  environment: '',
  sha: 'b'.repeat(40),
  manifests: [],
  problems: [],
  ...extra
})

describe('renderSnapshotSection', () => {
  it('is empty when the Diff read the cluster', () => {
    expect(renderSnapshotSection(report({}))).toBe('')
  })

  it('names the snapshot, its time and the run that wrote it', () => {
    expect(renderSnapshotSection(report({ snapshot: source }))).toBe(
      '> Diff computed against the State snapshot of `aaaaaaaaaaaa`, `2026-01-02T03:04:05Z`, ' +
        'written by https://github.com/acme/deploy/actions/runs/7 (ref `refs/tazuna-state/production`), not the cluster.\n\n'
    )
  })

  it('warns when the snapshot is not of the base branch head', () => {
    const text = renderSnapshotSection(report({ snapshot: { ...source, baseSha: 'c'.repeat(40) } }))
    expect(text).toContain(':warning: **Stale snapshot:** the base branch is at `cccccccccccc`')
  })

  it('lists the Secret entries not compared, and quotes a writtenBy that is not a URL', () => {
    const text = renderSnapshotSection(
      report({
        snapshot: { ...source, writtenBy: '[x](javascript:y)' },
        notCompared: [{ manifest: 'web', key: 'web//v1/Secret/app/db' }]
      })
    )
    expect(text).toContain('written by `[x](javascript:y)`')
    expect(text).toContain('> **Not compared without cluster access**')
    expect(text).toContain('> - `web`: `/v1/Secret/app/db`\n')
  })
})
