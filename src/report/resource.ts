/**
 * The RESOURCE column of `tazuna state diff`: the logical key without its manifest segment
 * (spec §7.2), e.g. `/v1/Service/default/web` for the core group.
 */

/** `group/version/kind[/namespace]/name` of a state key; an unparseable key is returned whole. */
export function resourceOf(key: string): string {
  const parts = key.split('/')
  // SplitN(key, "/", 6): a 5- or 6-part key; more slashes end up inside the name (spec §5.2).
  if (parts.length < 5) return key
  return key.slice(key.indexOf('/') + 1)
}
