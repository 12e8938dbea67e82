import { Button, Card, Group, Text, TextInput, Title } from '@mantine/core';
import { updateWorkspaceBody } from '@farm/api/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { serverMessageOr } from '../../../shared/api';
import { errorToast, toast } from '../../../shared/toast';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useUpdateWorkspace, useWorkspace } from '../settings.api';

export function WorkspaceSection({ canManage }: { canManage: boolean }) {
  const workspace = useWorkspace(true);
  const update = useUpdateWorkspace();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const current = workspace.data?.name ?? '';

  useEffect(() => setName(current), [current]);

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = updateWorkspaceBody.safeParse({ name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    update.mutate(parsed.data.name, {
      onSuccess: () => toast('Workspace Updated', 'The workspace name has been saved.'),
      onError: (failure) => errorToast('Error', serverMessageOr(failure, 'Failed to update workspace')),
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="workspace-title">
      <Title order={2} fz="lg" mb="md" id="workspace-title">
        Workspace
      </Title>
      {workspace.isPending ? (
        <LoadingState label="Loading workspace..." />
      ) : canManage ? (
        <form onSubmit={save}>
          <Group align="flex-end" gap="sm" wrap="wrap">
            <TextInput
              label="Workspace Name"
              required
              value={name}
              error={error}
              onChange={(event) => setName(event.currentTarget.value)}
              style={{ flex: '1 1 220px' }}
            />
            <Button type="submit" loading={update.isPending} disabled={name.trim() === current}>
              Save Workspace
            </Button>
          </Group>
        </form>
      ) : (
        <Text>{current}</Text>
      )}
    </Card>
  );
}
