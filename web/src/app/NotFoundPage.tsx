import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <Center mih="100dvh" p="md" component="main">
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
    </Center>
  );
}
