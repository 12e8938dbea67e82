import { Center, Group, Loader, Text } from '@mantine/core';

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
