/**
 * oras-go v2.6.1's `validateRealm`, which Helm v3.21.4's registry client applies before asking a
 * Bearer challenge's token service: an http realm only for a registry reached over http, and a
 * loopback, link-local, private or unspecified realm host only when it is the registry's own.
 */
import { OciRegistryError } from './registry-error.js'

/** oras-go `validateRealm`: http realms only for http registries, private hosts only as itself. */
export function checkRealm(realm: string, host: string, overHttp: boolean): void {
  if (realm === '')
    throw new OciRegistryError(
      `registry ${host} sent a Bearer challenge without realm`,
      undefined,
      'auth'
    )
  let url: URL
  try {
    url = new URL(realm)
  } catch {
    throw new OciRegistryError(
      `registry ${host}: failed to parse bearer realm ${realm}`,
      undefined,
      'auth'
    )
  }
  if (url.protocol === 'http:' && !overHttp) {
    throw new OciRegistryError(
      `registry ${host}: bearer realm ${realm} uses http but the registry was contacted over https`,
      undefined,
      'auth'
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OciRegistryError(
      `registry ${host}: bearer realm ${realm} uses an unsupported scheme`,
      undefined,
      'auth'
    )
  }
  const realmHost = url.hostname.replace(/^\[|\]$/g, '')
  const registryHostname = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '')
  if (isPrivateAddress(realmHost) && realmHost !== registryHostname) {
    throw new OciRegistryError(
      `registry ${host}: bearer realm host ${realmHost} is a loopback, link-local, private, or unspecified address`,
      undefined,
      'auth'
    )
  }
}

function isPrivateAddress(host: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host)
  if (v4 !== null) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    )
  }
  const h = host.toLowerCase()
  return (
    h === '::1' || h === '::' || h.startsWith('fe80:') || h.startsWith('fc') || h.startsWith('fd')
  )
}
