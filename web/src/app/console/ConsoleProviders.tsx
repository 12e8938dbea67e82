import '@mantine/notifications/styles.css';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { createQueryClient } from '../../shared/api';
import { watchSessionArrivals } from '../../shared/live-duration';
import { TOAST_DURATION } from '../../shared/toast';
import { watchSessionExpiry } from '../session-expiry';

/**
 * One query cache for the visit: a person who opens the landing page from the console and comes back finds what
 * was already read (the console unmounts while the landing page shows).
 */
let visitQueryClient: QueryClient | undefined;

function queryClientForTheVisit(): QueryClient {
  visitQueryClient ??= createQueryClient();
  return visitQueryClient;
}

export interface ConsoleProvidersProps {
  children: ReactNode;
  queryClient?: QueryClient;
}

/** Toasts and server state for every page but the landing page; inside SiteProviders (the theme). */
export function ConsoleProviders({ children, queryClient: given }: ConsoleProvidersProps) {
  const [queryClient] = useState(() => given ?? queryClientForTheVisit());

  useEffect(() => watchSessionExpiry(queryClient), [queryClient]);
  // Running sessions count up from the moment each row arrived.
  useEffect(() => watchSessionArrivals(queryClient), [queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <Notifications limit={1} autoClose={TOAST_DURATION} position="top-center" containerWidth={420} />
      {children}
    </QueryClientProvider>
  );
}
