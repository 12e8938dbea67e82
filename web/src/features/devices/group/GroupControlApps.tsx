/**
 * The apps group control may drive: the built-in setup apps, and the packages operators of the workspace added. An
 * addition the server refuses (an app with accounts, one a recipe drives) says why under the field.
 */
import { ActionIcon, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import type { GroupControlApps as Apps } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';

const PACKAGE = /^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/;

/** The server's sentence for the first refused field, or its message. */
function refusal(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The apps could not be saved; try again';
  try {
    const body = JSON.parse(error.body) as { error?: string; details?: { message?: string }[] };
    return body.details?.[0]?.message ?? body.error ?? error.message;
  } catch {
    return error.message;
  }
}

export function GroupControlApps() {
  const apps = useQuery<Apps>({ queryKey: ['/api/group-control/apps'] });
  const invalidate = useInvalidate();
  const save = useMutation({
    mutationFn: (added: string[]) => apiRequest<Apps>('/api/group-control/apps', { method: 'PUT', body: { added } }),
    onSuccess: () => invalidate('/api/group-control/apps'),
  });
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const added = apps.data?.added ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = name.trim();
    if (!PACKAGE.test(next)) {
      setError('Write a package name, such as com.example.app');
      return;
    }
    setError(null);
    save.mutate([...added, next], { onSuccess: () => setName(''), onError: (cause) => setError(refusal(cause)) });
  };

  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-labelledby="group-apps-title">
      <Stack gap="xs">
        <Title order={2} fz="md" id="group-apps-title">
          Apps group control may drive
        </Title>
        <Text size="sm" c="dimmed">
          Built in:{' '}
          {(apps.data?.builtIn ?? [])
            .map((app) => app.name)
            .filter((value, index, all) => all.indexOf(value) === index)
            .join(', ') || '…'}
          . Apps with accounts (social, dating, messaging, video, browsers) and apps a recipe drives can never be added.
        </Text>
        {added.length > 0 ? (
          <Group gap={6}>
            {added.map((pkg) => (
              <Badge
                key={pkg}
                variant="light"
                tt="none"
                rightSection={
                  <ActionIcon
                    size="xs"
                    variant="transparent"
                    aria-label={`Remove ${pkg}`}
                    disabled={save.isPending}
                    onClick={() =>
                      save.mutate(
                        added.filter((other) => other !== pkg),
                        { onError: (cause) => setError(refusal(cause)) },
                      )
                    }
                  >
                    <IconX size={12} />
                  </ActionIcon>
                }
              >
                {pkg}
              </Badge>
            ))}
          </Group>
        ) : null}
        <form onSubmit={submit}>
          <Group gap="xs" align="flex-start" wrap="nowrap">
            <TextInput
              style={{ flex: 1 }}
              size="xs"
              label="Add an app by its package"
              placeholder="com.example.app"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={error}
            />
            <Button type="submit" size="xs" mt={22} loading={save.isPending}>
              Add
            </Button>
          </Group>
        </form>
      </Stack>
    </Paper>
  );
}
