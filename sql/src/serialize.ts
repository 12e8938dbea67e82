/** Rows to contract shapes (shared by the API and the workers): every Date becomes an ISO string; the response schema drops columns it does not name. */
type Serialized<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

export function serialize<T extends object>(row: T): Serialized<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? value.toISOString() : value;
  return out as Serialized<T>;
}
