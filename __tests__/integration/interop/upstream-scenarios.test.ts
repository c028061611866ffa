// pepabo/tazuna's own runner and manager scenarios, run by both tools on the test cluster.
//
// The scenarios (upstream-runner-scenarios.ts, upstream-manager-scenarios.ts) are our fixtures in
// upstream's shapes, written by the tests. For each, tazuna-action's command line and the real
// Tazuna CLI (TAZUNA_BIN) run the same commands from a clean start; the test asserts the same
// outcome of every command (both fail where upstream's tests expect an error, with the message
// they assert), the same text of `build` and `state diff`, the same `tags` blocks (Tazuna's
// order is Go's map order, docs/compatibility.md#tags-command), byte-identical State ConfigMaps
// apart from lastSyncedAt, and the same objects in the cluster. `plan` is run only where it must
// fail: its output is quieter by design (docs/compatibility.md#plan). Without TAZUNA_BIN only our
// side runs, against upstream's assertions.
//
// Covered, pkg/runner: TestApplyToCluster_OK, _WithTags, TestApply_WithIncludes,
// TestExpandIncludes, TestListTags_OK, _NoTags, _WithIncludes, TestApplyToCluster_StateSaved_*
// (HappyPath_Kustomize, EmptyManifestName, MultipleManifestsIndependent, IdempotentOnReapply,
// ApplyFailureNoState, GenesisSecret), TestApply_SyncMode_* (DiffOnly, ModifiedResource,
// PruneRemovedResource, PruneWithoutSyncErrors, AtomicMode), TestApply_DependsOn_OrderRespected
// and _LayerFailureStopsNextLayer (with kustomize manifests for upstream's fake managers).
// pkg/manager: TestKustomize_Apply, _Apply_JobIdempotency (with --sync:
// docs/compatibility.md#job-and-pod-hashes), TestHelmfile_Apply, _Apply_WithExtraValueFiles,
// _ConstructHelmfileVars_StaticSliceAndMap, _ConstructHelmfileVars_WithHint,
// _Build_RejectsEnvFunction, _Build_EnvironmentName, _Build_ToYamlFunction,
// _Build_LocalSubchartPath.
//
// Left out: TestHelmfile_Build_WithVars, TestHelmfile_ConstructHelmfileVars_OpFieldLookup and
// pkg/manager's genesis_secret tests (1Password); TestHelmfile_Build_OCIChart, _OCIRepoChart,
// _HTTPRepoChart, _HTTPRepoChart_IgnoresLocalCwdCollision (charts from the internet);
// TestApply_DependsOn_ParallelInLayer (timing of upstream's fake managers, not observable through
// a command line); TestSetupManagers_* (Go wiring). The oras puller's scenario is
// integration/interop/oras.test.ts; drift, status and destroy are
// integration/interop/drift-status-destroy.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { adminSession } from '../../support/cluster.js'
import { describeWithTazuna, tazunaSkipReason } from './tools.js'
import { managerScenarios } from './upstream-manager-scenarios.js'
import { runnerScenarios } from './upstream-runner-scenarios.js'
import {
  actionTool,
  comparable,
  expectedOutcomes,
  outcomes,
  removeWorkspace,
  tagBlocks,
  tazunaTool,
  traceScenario,
  writeWorkspace,
  type Trace,
  type UpstreamScenario
} from './upstream-scenario-run.js'

if (tazunaSkipReason !== '') {
  process.stderr.write(`interop: upstream scenarios with the Tazuna CLI${tazunaSkipReason}\n`)
}

const scenarios: UpstreamScenario[] = [...runnerScenarios, ...managerScenarios]

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

describe.each(scenarios.map((s) => [s.name, s] as const))('upstream scenario %s', (_, scenario) => {
  let dir: string | undefined
  let ours: Trace | undefined
  beforeAll(() => {
    dir = writeWorkspace(scenario)
  })
  afterAll(() => removeWorkspace(dir))

  it(`tazuna-action does what upstream's ${scenario.covers} assert`, async () => {
    ours = await traceScenario(admin, scenario, dir ?? '', actionTool)
    expect(outcomes(scenario, ours)).toEqual(expectedOutcomes(scenario))
    scenario.check?.(ours)
    // Ours prints the tags in byte order (docs/compatibility.md#tags-command).
    const tagTexts = ours.filter((r) => r.command === 'tags').map((r) => r.stdout)
    expect(tagTexts).toEqual(tagTexts.map((t) => tagBlocks(t).join('')))
  })

  describeWithTazuna(`with the Tazuna CLI${tazunaSkipReason}`, () => {
    let theirs: Trace | undefined
    it(`the Tazuna CLI does what upstream's tests assert`, async () => {
      theirs = await traceScenario(admin, scenario, dir ?? '', tazunaTool)
      expect(outcomes(scenario, theirs)).toEqual(expectedOutcomes(scenario))
      scenario.check?.(theirs)
    })

    it('both print the same texts, write byte-identical State and leave the same objects', () => {
      if (ours === undefined || theirs === undefined) throw new Error('a tool did not run')
      expect(comparable(ours)).toEqual(comparable(theirs))
    })
  })
})
