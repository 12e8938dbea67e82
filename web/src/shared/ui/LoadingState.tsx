import { Center, Group, Loader, Paper, Stack, Text } from '@mantine/core';

/** A centred spinner with the screen's loading text (SPEC §2 names each one). */
export function LoadingState({ label }: { label: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Center>
  );
}

export function EmptyText({ children }: { children: string }) {
  return (
    <Center py="xl">
      <Text c="dimmed">{children}</Text>
    </Center>
  );
}

/** The card a list page shows instead of an empty grid: what is missing and, where it helps, what to do about it. */
export function EmptyCard({ title, hint }: { title: string; hint?: string | false }) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Stack align="center" gap={4}>
        <Text fw={600}>{title}</Text>
        {hint ? (
          <Text c="dimmed" size="sm" ta="center">
            {hint}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}
