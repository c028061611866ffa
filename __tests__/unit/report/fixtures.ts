import type { DiffEntry, DiffReport, ManifestDiff } from '../../../src/report/model.js'

/** A 64-hex hash derived from a small number, so expected values are easy to read. */
export const hash = (n: number): string => n.toString(16).padStart(2, '0').repeat(32)

/** `count` entries of one type in manifest `manifest`, keys `.../obj-<i>`. */
export function entries(manifest: string, type: DiffEntry['type'], count: number): DiffEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    type,
    key: `${manifest}/apps/v1/Deployment/team-${manifest}/obj-${String(i).padStart(5, '0')}`,
    ...(type === 'added' || type === 'always-sync' ? { newHash: hash(i % 256) } : {}),
    ...(type === 'removed' ? { oldHash: hash(i % 256) } : {}),
    ...(type === 'modified' ? { oldHash: hash(i % 256), newHash: hash((i + 1) % 256) } : {})
  }))
}

export function report(manifests: ManifestDiff[], extra: Partial<DiffReport> = {}): DiffReport {
  return {
    config: 'deploy/tazuna.yaml',
    environment: 'production',
    sha: '0123456789abcdef0123456789abcdef01234567',
    manifests,
    plan: {
      layers: [manifests.map((m) => m.manifest)],
      nodes: manifests.map((m) => ({ name: m.manifest, dependsOn: [] }))
    },
    problems: [],
    ...extra
  }
}
