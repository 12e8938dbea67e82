/** What a path the console does not show reads: 'Page Not Found' (SPEC §2), on its own page or inside the shell. */
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NotFoundContent() {
  return (
    <Stack align="center" gap="md" ta="center">
      <Text fz={64} fw={800} c="dimmed" lh={1} aria-hidden>
        404
      </Text>
      <Title order={1}>Page Not Found</Title>
      <Text c="dimmed" maw={420}>
        The page you are looking for does not exist or has moved.
      </Text>
      <Button component={Link} to="/">
        Go to Home
      </Button>
    </Stack>
  );
}

/**
 * Inside the signed-in shell, for a path under a screen that has no such part, or a part the person's role may not
 * open: the same words as any unknown path, with the sidebar still there.
 */
export function NotFoundInShell() {
  return (
    <Center py="xl">
      <NotFoundContent />
    </Center>
  );
}
