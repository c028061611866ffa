/**
 * The order in which go-yaml v2 (sorter.go) writes map keys: letters by code point, digit runs
 * by numeric value, letters after everything else at the same position.
 */

/**
 * go-yaml v2 sorter.go keyList.Less for two string keys. It is not a strict order for every
 * key set (digit runs with leading zeros next to letters can form cycles, e.g. `a10 < a1b2 <
 * a9 < a10`); Go then sorts map keys in an order that depends on map iteration, which no port
 * can reproduce. Realistic Secret keys, labels and annotations do not form such cycles.
 */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a]
  const br = [...b]
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ai = ar[i] as string
    const bi = br[i] as string
    if (ai === bi) continue
    const al = isLetter(ai)
    const bl = isLetter(bi)
    if (al && bl) return cp(ai) < cp(bi)
    if (al || bl) return bl
    let an = 0n
    let bn = 0n
    if (ai === '0' || bi === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = bn = 1n
          break
        }
      }
    }
    let aj = i
    for (; aj < ar.length && isDigit(ar[aj] as string); aj++)
      an = BigInt.asIntN(64, an * 10n + BigInt(cp(ar[aj] as string) - 48))
    let bj = i
    for (; bj < br.length && isDigit(br[bj] as string); bj++)
      bn = BigInt.asIntN(64, bn * 10n + BigInt(cp(br[bj] as string) - 48))
    if (an !== bn) return an < bn
    if (aj !== bj) return aj < bj
    return cp(ai) < cp(bi)
  }
  return ar.length < br.length
}

const cp = (ch: string): number => ch.codePointAt(0) ?? 0
const isLetter = (ch: string): boolean => /^\p{L}$/u.test(ch)
const isDigit = (ch: string): boolean => /^\p{Nd}$/u.test(ch)
