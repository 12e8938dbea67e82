import { Button, Card, Divider, Group, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { updateWorkspaceBody } from '@farm/contracts';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { browserTimeZone, setUserTimeZone, timeZoneNames, useUserTimeZone } from '../../../shared/timezone';
import { errorToast, toast } from '../../../shared/toast';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useRequireTwoFactor, useUpdateWorkspace, useWorkspace } from '../settings.api';
import { RetentionForm } from './RetentionForm';

export function WorkspaceSection({ canManage }: { canManage: boolean }) {
  const workspace = useWorkspace(true);
  const update = useUpdateWorkspace();
  const requireTwoFactor = useRequireTwoFactor();
  const [name, setName] = useState('');
  const [zone, setZone] = useState('UTC');
  const [error, setError] = useState<string | undefined>();
  const current = workspace.data?.name ?? '';
  const currentZone = workspace.data?.timeZone ?? 'UTC';
  const myZone = useUserTimeZone();
  const zones = useMemo(() => timeZoneNames(), []);

  useEffect(() => setName(current), [current]);
  useEffect(() => setZone(currentZone), [currentZone]);

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = updateWorkspaceBody.safeParse({ name, timeZone: zone });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    update.mutate(
      { name: parsed.data.name, ...(parsed.data.timeZone ? { timeZone: parsed.data.timeZone } : {}) },
      {
        onSuccess: () => toast('Workspace Updated', 'The workspace settings have been saved.'),
        onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to update workspace')),
      },
    );
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
            <Select
              label="Workspace time zone"
              description="Analytics count days in it"
              searchable
              data={zones.includes(zone) ? zones : [zone, ...zones]}
              value={zone}
              allowDeselect={false}
              onChange={(value) => value && setZone(value)}
              style={{ flex: '1 1 220px' }}
            />
            <Button type="submit" loading={update.isPending} disabled={name.trim() === current && zone === currentZone}>
              Save Workspace
            </Button>
          </Group>
        </form>
      ) : (
        <Stack gap={2}>
          <Text>{current}</Text>
          <Text size="sm" c="dimmed">
            Time zone: {currentZone}
          </Text>
        </Stack>
      )}
      {canManage && workspace.data ? (
        <>
          <Divider my="lg" />
          <Switch
            label="Require two-factor sign-in for operators"
            description="Operators without it are signed out and set it up at their next login. Turn it on for yourself first."
            checked={workspace.data.requireTwoFactor}
            disabled={requireTwoFactor.isPending}
            onChange={(event) => {
              const required = event.currentTarget.checked;
              requireTwoFactor.mutate(required, {
                onSuccess: () =>
                  toast('Workspace Updated', required ? 'Operators now sign in with a second step.' : 'Two-factor sign-in is now up to each operator.'),
                onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to update workspace')),
              });
            }}
          />
          {workspace.data.retention ? (
            <>
              <Divider my="lg" />
              <RetentionForm current={workspace.data.retention} />
            </>
          ) : null}
        </>
      ) : null}
      <Group align="flex-end" gap="sm" mt="md" wrap="wrap">
        <Select
          label="Your time zone"
          description="The calendar and schedules show times in it (kept in this browser)"
          searchable
          data={zones.includes(myZone) ? zones : [myZone, ...zones]}
          value={myZone}
          allowDeselect={false}
          onChange={(value) => setUserTimeZone(value === browserTimeZone() ? null : value)}
          style={{ flex: '1 1 260px' }}
        />
        <Button variant="default" onClick={() => setUserTimeZone(null)} disabled={myZone === browserTimeZone()}>
          Use this browser’s zone
        </Button>
      </Group>
    </Card>
  );
}
