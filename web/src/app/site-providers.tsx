import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import { colorSchemeManager, cssVariablesResolver, DEFAULT_COLOR_SCHEME, forcedSchemeFor, theme } from './theme';

export interface SiteProvidersProps {
  children: ReactNode;
  /** 'test' turns off transitions and portals for component tests. */
  env?: 'default' | 'test';
}

/**
 * The theme, for every page under the router: all the landing page needs. The signed-in console adds its own
 * (server state, toasts) in console/ConsoleProviders, loaded with its screens.
 */
export function SiteProviders({ children, env }: SiteProvidersProps) {
  const { pathname } = useLocation();
  return (
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme={DEFAULT_COLOR_SCHEME}
      forceColorScheme={forcedSchemeFor(pathname)}
      env={env}
    >
      {children}
    </MantineProvider>
  );
}
