/**
 * The recipe editor's compare: a line diff of two recipe documents, each pretty-printed as JSON (2-space indent, keys
 * in the document's own order). Lines common to both ends are trimmed first; the rest is a longest-common-subsequence
 * table, which is small for a recipe (a few hundred lines changed at most). Past `MAX_CELLS` the middle is shown as
 * removed then added, whole, rather than spending seconds of the server's time on a document no one would read.
 */

export type DiffLine =
  | { kind: 'same'; text: string; oldLine: number; newLine: number }
  | { kind: 'removed'; text: string; oldLine: number; newLine: null }
  | { kind: 'added'; text: string; oldLine: null; newLine: number };

/** The largest LCS table computed (old middle lines × new middle lines). */
export const MAX_CELLS = 4_000_000;

/** A document as the editor shows it: JSON with a 2-space indent and a final newline left off. */
export function prettyRecipe(document: unknown): string {
  return JSON.stringify(document, null, 2);
}

/** The lines of `before` and `after` in order: each line kept, removed from `before`, or added in `after`. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i += 1) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: i + 1 });
  out.push(...middle(a, b, start, endA, endB));
  for (let i = endA, j = endB; i < a.length; i += 1, j += 1) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: j + 1 });
  return out;
}

function middle(a: string[], b: string[], start: number, endA: number, endB: number): DiffLine[] {
  const n = endA - start;
  const m = endB - start;
  const removed = (i: number): DiffLine => ({ kind: 'removed', text: a[i]!, oldLine: i + 1, newLine: null });
  const added = (j: number): DiffLine => ({ kind: 'added', text: b[j]!, oldLine: null, newLine: j + 1 });
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    const out: DiffLine[] = [];
    for (let i = start; i < endA; i += 1) out.push(removed(i));
    for (let j = start; j < endB; j += 1) out.push(added(j));
    return out;
  }
  // lengths[i * (m + 1) + j]: the LCS of a[start + i ..] and b[start + j ..].
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1)
    for (let j = m - 1; j >= 0; j -= 1)
      lengths[i * width + j] =
        a[start + i] === b[start + j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      out.push({ kind: 'same', text: a[start + i]!, oldLine: start + i + 1, newLine: start + j + 1 });
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      out.push(removed(start + i));
      i += 1;
    } else {
      out.push(added(start + j));
      j += 1;
    }
  }
  for (; i < n; i += 1) out.push(removed(start + i));
  for (; j < m; j += 1) out.push(added(start + j));
  return out;
}
