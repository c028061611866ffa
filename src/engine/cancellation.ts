/**
 * Cancelling a run (EnginePorts.signal): once the signal aborts, no request to the cluster
 * starts any more — the session's client refuses them (src/adapters/kube/client.ts), and a
 * session is not opened — and renders in flight are abandoned (their programs may finish, but
 * nothing waits for them). A request already sent is answered before the run goes on, so when
 * the run has ended nothing of it is still on its way to the API server. The run lock is the
 * one exception: renewing and releasing it still go out, so a cancelled run does not leave the
 * Lease behind to block the next one for its TTL.
 */
import type { RenderModule } from '../render/ports.js'
import type { EnginePorts } from './ports.js'

/** Work refused or abandoned because the run was cancelled. */
export class CancelledError extends Error {
  override name = 'CancelledError'
}

/** The ports with renders and the opening of a session stopping at `signal`. */
export function cancellablePorts(ports: EnginePorts, signal: AbortSignal): EnginePorts {
  const guard = guardFor(signal)
  return {
    ...ports,
    renderer: cancellableRenderer(ports.renderer, signal),
    openSession: () => guard('open a cluster session', () => ports.openSession())
  }
}

/** The CancelledError saying the run did not do `what`, with the signal's reason if it gave one. */
function cancelledError(signal: AbortSignal, what: string): CancelledError {
  const reason = typeof signal.reason === 'string' ? ` (${signal.reason})` : ''
  return new CancelledError(`the run was cancelled${reason}: it did not ${what}`)
}

/** `guard(what, call)`: the call's promise, or a CancelledError once `signal` has aborted. */
function guardFor(signal: AbortSignal) {
  return <T>(what: string, call: () => Promise<T>): Promise<T> =>
    signal.aborted ? Promise.reject(cancelledError(signal, what)) : call()
}

/** The render module, its renders failing as soon as `signal` aborts. */
function cancellableRenderer(module: RenderModule, signal: AbortSignal): RenderModule {
  const guard = guardFor(signal)
  // The render goes on in its program when cancelled; its late result is dropped.
  const untilCancelled = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    guard(what, () => {
      const rendered = call()
      const stopped = new Promise<never>((_, reject) => {
        const onAbort = (): void => reject(cancelledError(signal, `finish ${what}`))
        signal.addEventListener('abort', onAbort, { once: true })
        const done = (): void => signal.removeEventListener('abort', onAbort)
        rendered.then(done, done)
      })
      return Promise.race([rendered, stopped])
    })
  const documentsOf = module.documentsOf?.bind(module)
  const decode = module.decode?.bind(module)
  const readsOf = module.readsOf?.bind(module)
  const prepare = module.prepare?.bind(module)
  const unpackAhead = module.unpackAhead?.bind(module)
  const unpackCheckAhead = module.unpackCheckAhead?.bind(module)
  const prepareCheck = module.prepareCheck?.bind(module)
  const underway = module.underway?.bind(module)
  const checkSchema = module.checkSchema?.bind(module)
  const letGo = module.letGo?.bind(module)
  return {
    kustomize: (dir) => untilCancelled('render with kustomize', () => module.kustomize(dir)),
    helm: (release) => untilCancelled('render with Helm', () => module.helm(release)),
    loaded: () => module.loaded(),
    ...(documentsOf && { documentsOf }),
    ...(decode && { decode }),
    ...(readsOf && { readsOf }),
    ...(prepare && { prepare }),
    ...(unpackAhead && { unpackAhead }),
    ...(unpackCheckAhead && { unpackCheckAhead }),
    ...(prepareCheck && { prepareCheck }),
    ...(underway && { underway }),
    ...(letGo && { letGo }),
    ...(checkSchema && {
      checkSchema: (
        schemas: Parameters<typeof checkSchema>[0],
        objects: Parameters<typeof checkSchema>[1],
        crds?: Parameters<typeof checkSchema>[2]
      ) => untilCancelled('check the schema', () => checkSchema(schemas, objects, crds))
    })
  }
}
