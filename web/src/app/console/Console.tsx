import { AppRoutes } from '../routes';
import { ConsoleProviders } from './ConsoleProviders';

/**
 * Everything past the landing page: sign-in, sign-up, the signed-in console and the wall screen, with their
 * providers. Loaded when a visitor first opens one of them, so the landing page carries none of it.
 */
export function Console() {
  return (
    <ConsoleProviders>
      <AppRoutes />
    </ConsoleProviders>
  );
}
