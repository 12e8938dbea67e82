import { createTheme, localStorageColorSchemeManager, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 keeps white button labels above 4.5:1 contrast in both schemes.
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  headings: { fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  components: {
    // SPEC §9: tooltips open after 700 ms.
    Tooltip: { defaultProps: { openDelay: 700, withArrow: true } },
    // Every toast's close button is named, and its message reads at full contrast in both schemes.
    Notification: {
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      styles: { description: { color: 'var(--mantine-color-text)' } },
    },
  },
});

/**
 * Text shades for status colours on white: Mantine's light-variant and text colours (even shade 9 for
 * green, yellow, orange and teal) fall short of WCAG AA there, so the light scheme uses darker tones.
 */
const lightSchemeText: Record<string, string> = {
  blue: 'var(--mantine-color-blue-9)',
  green: '#1b6b2e',
  yellow: '#7a4a00',
  orange: '#8a3c00',
  red: '#b02525',
  teal: '#06604a',
  gray: 'var(--mantine-color-gray-8)',
};

/** Keeps secondary text, status text and light badges and buttons at 4.5:1 contrast or more in both schemes. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    ...Object.fromEntries(
      Object.entries(lightSchemeText).flatMap(([color, value]) => [
        [`--mantine-color-${color}-text`, value],
        [`--mantine-color-${color}-light-color`, value],
      ]),
    ),
  },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});

/** The chosen theme lives in localStorage; dark is the default. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'theme' });
export const DEFAULT_COLOR_SCHEME = 'dark' as const;

/** Landing, login, signup and password reset (and the wall screen, for a TV) are always dark, whatever the visitor chose inside the console. */
const forcedDarkPaths = new Set(['/', '/login', '/signup', '/reset-password', '/monitor/wall']);

export function forcedSchemeFor(pathname: string): 'dark' | undefined {
  const normalised = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return forcedDarkPaths.has(normalised) ? 'dark' : undefined;
}
