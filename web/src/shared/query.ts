/** Query keys and URLs for filtered lists: the key is the API path, plus the filters when there are any. */
export type QueryParams = Record<string, string | number | boolean | null | undefined>;

/** Drops empty filters so equal filters give equal keys. */
export function cleanParams(params: QueryParams = {}): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    clean[key] = String(value);
  }
  return clean;
}

export function listKey(path: string, params: QueryParams = {}): readonly [string] | readonly [string, Record<string, string>] {
  const clean = cleanParams(params);
  return Object.keys(clean).length === 0 ? [path] : [path, clean];
}

export function withQuery(path: string, params: QueryParams = {}): string {
  const search = new URLSearchParams(cleanParams(params)).toString();
  return search ? `${path}?${search}` : path;
}
