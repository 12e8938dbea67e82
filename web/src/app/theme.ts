import { createTheme, localStorageColorSchemeManager } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  headings: { fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  components: {
    // SPEC §9: tooltips open after 700 ms.
    Tooltip: { defaultProps: { openDelay: 700, withArrow: true } },
  },
});

/** The chosen theme lives in localStorage; dark is the default. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'theme' });
export const DEFAULT_COLOR_SCHEME = 'dark' as const;

/** Landing, login and signup are always dark, whatever the visitor chose inside the console. */
const forcedDarkPaths = new Set(['/', '/login', '/signup']);

export function forcedSchemeFor(pathname: string): 'dark' | undefined {
  const normalised = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return forcedDarkPaths.has(normalised) ? 'dark' : undefined;
}
