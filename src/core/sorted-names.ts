/** Small helpers over sorted lists of names (the selected groups, 10,000 of them at scale). */

/** Whether two lists hold the same names in the same order. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where `name` is in the strictly sorted list `sorted` (binary search), or -1. */
export function indexInSorted(sorted: readonly string[], name: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === name) return mid;
    if (v < name) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Membership in a sorted list, by binary search (no Set of 10,000 names per group refresh). */
export function sortedMembers(sorted: readonly string[]): { has(g: string): boolean } {
  return { has: (g: string): boolean => indexInSorted(sorted, g) >= 0 };
}

/** Whether `names` is strictly sorted (each name once): then indexInSorted finds them. */
export function strictlySorted(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (!(names[i - 1] < names[i])) return false;
  return true;
}
