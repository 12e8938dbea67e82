import { Badge, Button, Card, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createHostBody, type EnrollmentCode, type Host } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { formatDateTime, formatRelative } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';
import { EnrollmentCode as EnrollmentCodeView } from '../../../shared/ui/EnrollmentCode';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useCreateHost, useHostCode, useHosts, useRevokeHost } from '../settings.api';
import { HostFleetPanel } from './HostFleetPanel';

const hostCommand = [
  { label: 'On the PC with the phones on USB (adb running), from the repository', command: 'pnpm farm-agent host --server {server} --code {code}' },
];

function hostState(host: Host): { label: string; color: string } {
  if (host.revokedAt) return { label: 'Revoked', color: 'gray' };
  if (!host.enrolledAt) return { label: 'Waiting for its code', color: 'yellow' };
  return host.connected ? { label: 'Connected', color: 'green' } : { label: 'Disconnected', color: 'red' };
}

/** Farm host PCs: each registers every phone on its USB hubs by itself, once it has exchanged its one-time code. */
export function PhoneHostsSection() {
  const hosts = useHosts(true);
  const create = useCreateHost();
  const newCode = useHostCode();
  const revoke = useRevokeHost();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [code, setCode] = useState<(EnrollmentCode & { hostName: string }) | null>(null);
  const [revoking, setRevoking] = useState<Host | null>(null);
  const [fleetOf, setFleetOf] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createHostBody.safeParse({ name: name.trim() || undefined });
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    setNameError(undefined);
    create.mutate(parsed.data.name, {
      onSuccess: (created) => {
        setCode({ code: created.code, expiresAt: created.expiresAt, hostName: created.host.name });
        setName('');
        toast('Phone Host Added', `Run the host command on ${created.host.name} with its code.`);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to add the phone host')),
    });
  };

  const reissue = (host: Host) =>
    newCode.mutate(host.id, {
      onSuccess: (issued) => setCode({ ...issued, hostName: host.name }),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to create a new code')),
    });

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast('Phone Host Revoked', `${revoking.name} and its phones were disconnected.`);
        setRevoking(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to revoke the phone host')),
    });
  };

  const list = hosts.data ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="phone-hosts-title">
      <Title order={2} fz="lg" mb={4} id="phone-hosts-title">
        Phone hosts
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        A phone host is a PC with phones on USB. Once it has its code, every phone plugged into it joins the console by itself, and goes offline when unplugged.
      </Text>
      <form onSubmit={submit}>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            label="Host name (optional)"
            placeholder="Rack A"
            value={name}
            error={nameError}
            maxLength={80}
            onChange={(event) => setName(event.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
          <Button type="submit" loading={create.isPending} mt={{ base: 0, xs: 25 }}>
            Add Host
          </Button>
        </Group>
      </form>
      {code ? (
        <Paper withBorder p="md" radius="md" mt="md" aria-label={`Code for ${code.hostName}`}>
          <Text fw={600} mb="sm">{`Code for ${code.hostName}`}</Text>
          <EnrollmentCodeView code={code.code} expiresAt={code.expiresAt} commands={hostCommand} />
        </Paper>
      ) : null}

      <Title order={3} fz="md" mt="lg" mb="sm">
        Hosts
      </Title>
      {hosts.isPending ? (
        <LoadingState label="Loading phone hosts..." />
      ) : list.length === 0 ? (
        <EmptyText>No phone hosts yet</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((host) => {
            const state = hostState(host);
            return (
              <Paper key={host.id} withBorder p="sm" radius="md" component="li" aria-label={host.name}>
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <div style={{ minWidth: 0 }}>
                    <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                      {host.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {`${host.phonesOnline} of ${host.phones} phone${host.phones === 1 ? '' : 's'} online`}
                      {host.lastSeenAt ? ` · last seen ${formatRelative(host.lastSeenAt)}` : ` · added ${formatDateTime(host.createdAt)}`}
                    </Text>
                  </div>
                  <Group gap="sm">
                    <Badge variant="light" color={state.color}>
                      {state.label}
                    </Badge>
                    {host.revokedAt ? null : (
                      <>
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => setFleetOf(fleetOf === host.id ? null : host.id)}
                          aria-expanded={fleetOf === host.id}
                        >
                          Fleet Health
                        </Button>
                        <Button size="xs" variant="default" onClick={() => reissue(host)} loading={newCode.isPending && newCode.variables === host.id}>
                          New Code
                        </Button>
                        <Button size="xs" variant="light" color="red" onClick={() => setRevoking(host)}>
                          Revoke
                        </Button>
                      </>
                    )}
                  </Group>
                </Group>
                {fleetOf === host.id && !host.revokedAt ? <HostFleetPanel hostId={host.id} hostName={host.name} /> : null}
              </Paper>
            );
          })}
        </Stack>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke phone host?"
        message="The host and every phone it connected are cut off at once; it must be added again to come back."
        confirmLabel="Revoke"
        loading={revoke.isPending}
        onConfirm={confirmRevoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}
