/** Rows to contract shapes (shared by the API and the workers): every Date becomes an ISO string; the response schema drops columns it does not name. */
type Serialized<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

export function serialize<T extends object>(row: T): Serialized<T> {
  // A key at a time, not Object.entries: every task, post and activity announced passes here, and the entries'
  // arrays were garbage the API collected for each row.
  const out: Record<string, unknown> = {};
  for (const key in row) {
    if (!Object.hasOwn(row, key)) continue;
    const value = row[key];
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return out as Serialized<T>;
}
