/**
 * The `--tags` filter (docs/compatibility.md#tags): honoured by apply/build/destroy/plan, not by
 * state commands.
 */

/** True when the filter is empty or any filter tag is one of the manifest's tags (OR). */
export function selectedByTags(
  manifestTags: readonly string[] | undefined,
  filterTags: readonly string[]
): boolean {
  return filterTags.length === 0 || filterTags.some((tag) => manifestTags?.includes(tag) === true)
}
