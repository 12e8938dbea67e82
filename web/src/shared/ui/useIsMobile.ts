import { useMediaQuery } from '@mantine/hooks';

/** Below 768 px the console switches to its mobile layout (SPEC §9). */
export const MOBILE_QUERY = '(max-width: 47.99em)';

export function useIsMobile(): boolean {
  return useMediaQuery(MOBILE_QUERY, false, { getInitialValueInEffect: false });
}
