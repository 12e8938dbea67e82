import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { createQueryClient } from '../shared/api';
import { watchSessionArrivals } from '../shared/live-duration';
import { TOAST_DURATION } from '../shared/toast';
import { watchSessionExpiry } from './session-expiry';
import { colorSchemeManager, cssVariablesResolver, DEFAULT_COLOR_SCHEME, forcedSchemeFor, theme } from './theme';

export interface AppProvidersProps {
  children: ReactNode;
  queryClient?: QueryClient;
  /** 'test' turns off transitions and portals for component tests. */
  env?: 'default' | 'test';
}

/** Theme, toasts and server state for everything under the router. */
export function AppProviders({ children, queryClient: given, env }: AppProvidersProps) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  const { pathname } = useLocation();

  useEffect(() => watchSessionExpiry(queryClient), [queryClient]);
  // Running sessions count up from the moment each row arrived.
  useEffect(() => watchSessionArrivals(queryClient), [queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <MantineProvider
        theme={theme}
        colorSchemeManager={colorSchemeManager}
        cssVariablesResolver={cssVariablesResolver}
        defaultColorScheme={DEFAULT_COLOR_SCHEME}
        forceColorScheme={forcedSchemeFor(pathname)}
        env={env}
      >
        <Notifications limit={1} autoClose={TOAST_DURATION} position="top-center" containerWidth={420} />
        {children}
      </MantineProvider>
    </QueryClientProvider>
  );
}
