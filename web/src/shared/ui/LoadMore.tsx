import { Button, Center } from '@mantine/core';

/** The next page of a list from the server's cursor. */
export function LoadMore({ hasMore, loading, onLoad }: { hasMore: boolean; loading: boolean; onLoad: () => void }) {
  if (!hasMore) return null;
  return (
    <Center mt="md">
      <Button variant="light" loading={loading} onClick={onLoad}>
        Load more
      </Button>
    </Center>
  );
}
