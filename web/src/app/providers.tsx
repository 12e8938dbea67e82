import type { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ConsoleProviders } from './console/ConsoleProviders';
import { SiteProviders } from './site-providers';

export interface AppProvidersProps {
  children: ReactNode;
  queryClient?: QueryClient;
  /** 'test' turns off transitions and portals for component tests. */
  env?: 'default' | 'test';
}

/** Theme, toasts and server state together, as a console screen has them (the app loads the two parts apart). */
export function AppProviders({ children, queryClient, env }: AppProvidersProps) {
  return (
    <SiteProviders env={env}>
      <ConsoleProviders queryClient={queryClient}>{children}</ConsoleProviders>
    </SiteProviders>
  );
}
