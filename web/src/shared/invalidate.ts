import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

/** Marks every cached read under the given API paths stale (lists with any filters, and single items). */
export function useInvalidate() {
  const queryClient = useQueryClient();
  return useCallback((...paths: string[]) => Promise.all(paths.map((path) => queryClient.invalidateQueries({ queryKey: [path] }))), [queryClient]);
}
