/** The sidebar remembers whether it is expanded in a cookie, for 7 days (SPEC §9). */
export const SIDEBAR_COOKIE = 'sidebar_state';
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7;

/** true when the sidebar is expanded; expanded unless the cookie says otherwise. */
export function readSidebarExpanded(cookie: string = document.cookie): boolean {
  const entry = cookie
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${SIDEBAR_COOKIE}=`));
  return entry?.slice(SIDEBAR_COOKIE.length + 1) !== 'false';
}

export function writeSidebarExpanded(expanded: boolean): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the server reads it to render the shell; the Cookie Store API is not in every browser
  document.cookie = `${SIDEBAR_COOKIE}=${String(expanded)}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; SameSite=Lax`;
}
