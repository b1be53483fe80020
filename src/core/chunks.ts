/** Cutting a run of records into produce requests, the one way every writer does it. */

/**
 * Cuts records (given by their sizes in bytes) into consecutive chunks of at most `maxRecords`
 * records and, unless a single record is larger, at most `maxBytes` bytes. Returns [start, end) pairs.
 */
export function chunkBySize(sizes: readonly number[], maxRecords: number, maxBytes: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  while (start < sizes.length) {
    let end = start;
    let bytes = 0;
    while (end < sizes.length && end - start < maxRecords && (end === start || bytes + sizes[end] <= maxBytes)) {
      bytes += sizes[end];
      end++;
    }
    out.push([start, end]);
    start = end;
  }
  return out;
}
