/** Settings → Phone hosts: farm PCs that register every phone on their USB hubs once they exchanged a one-time code. */
import { Button, Paper, Text, TextInput } from '@mantine/core';
import { createHostBody, type EnrollmentCode, type Host } from '@farm/contracts';
import { useState } from 'react';
import { formatDateTime, formatRelative } from '../../../shared/format';
import { refusalMessage } from '../../../shared/refusal';
import { useRevoke, useShowOnce } from '../../../shared/secrets/secrets.hooks';
import { SecretRow, SecretSection } from '../../../shared/secrets/SecretSection';
import { errorToast } from '../../../shared/toast';
import { EnrollmentCode as EnrollmentCodeView } from '../../../shared/ui/EnrollmentCode';
import { useCreateHost, useHostCode, useHosts, useRevokeHost } from './hosts.api';
import { HostFleetPanel } from './HostFleetPanel';

const hostCommand = [
  { label: 'On the PC with the phones on USB (adb running), from the repository', command: 'pnpm farm-agent host --server {server} --code {code}' },
];

function hostState(host: Host): { label: string; color: string } {
  if (host.revokedAt) return { label: 'Revoked', color: 'gray' };
  if (!host.enrolledAt) return { label: 'Waiting for its code', color: 'yellow' };
  return host.connected ? { label: 'Connected', color: 'green' } : { label: 'Disconnected', color: 'red' };
}

export function PhoneHostsSection() {
  const hosts = useHosts(true);
  const newCode = useHostCode();
  const [name, setName] = useState('');
  const [fleetOf, setFleetOf] = useState<string | null>(null);
  const create = useShowOnce({
    create: useCreateHost(),
    reveal: (created): EnrollmentCode & { hostName: string } => ({ code: created.code, expiresAt: created.expiresAt, hostName: created.host.name }),
    created: (created) => ['Phone Host Added', `Run the host command on ${created.host.name} with its code.`],
    failure: 'Failed to add the phone host',
    onCreated: () => setName(''),
  });
  const revoke = useRevoke<Host>({
    revoke: useRevokeHost(),
    revoked: (host) => ['Phone Host Revoked', `${host.name} and its phones were disconnected.`],
    failure: 'Failed to revoke the phone host',
  });

  const reissue = (host: Host) =>
    newCode.mutate(host.id, {
      onSuccess: (issued) => create.setSecret({ ...issued, hostName: host.name }),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to create a new code')),
    });

  const code = create.secret;
  return (
    <SecretSection
      id="phone-hosts"
      title="Phone hosts"
      description="A phone host is a PC with phones on USB. Once it has its code, every phone plugged into it joins the console by itself, and goes offline when unplugged."
      fields={
        <TextInput
          label="Host name (optional)"
          placeholder="Rack A"
          value={name}
          error={create.fieldError}
          maxLength={80}
          onChange={(event) => setName(event.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
      }
      submitLabel="Add Host"
      submitting={create.submitting}
      onSubmit={() => create.submit(createHostBody.safeParse({ name: name.trim() || undefined }))}
      shown={
        code ? (
          <Paper withBorder p="md" radius="md" mt="md" aria-label={`Code for ${code.hostName}`}>
            <Text fw={600} mb="sm">{`Code for ${code.hostName}`}</Text>
            <EnrollmentCodeView code={code.code} expiresAt={code.expiresAt} commands={hostCommand} />
          </Paper>
        ) : null
      }
      listTitle="Hosts"
      items={hosts}
      loadingLabel="Loading phone hosts..."
      emptyText="No phone hosts yet"
      renderItem={(host) => (
        <SecretRow
          key={host.id}
          label={host.name}
          name={host.name}
          meta={`${host.phonesOnline} of ${host.phones} phone${host.phones === 1 ? '' : 's'} online${
            host.lastSeenAt ? ` · last seen ${formatRelative(host.lastSeenAt)}` : ` · added ${formatDateTime(host.createdAt)}`
          }`}
          badge={hostState(host)}
          {...(host.revokedAt
            ? {}
            : {
                actions: (
                  <>
                    <Button size="xs" variant="default" onClick={() => setFleetOf(fleetOf === host.id ? null : host.id)} aria-expanded={fleetOf === host.id}>
                      Fleet Health
                    </Button>
                    <Button size="xs" variant="default" onClick={() => reissue(host)} loading={newCode.isPending && newCode.variables === host.id}>
                      New Code
                    </Button>
                  </>
                ),
                onRevoke: () => revoke.ask(host),
              })}
        >
          {fleetOf === host.id && !host.revokedAt ? <HostFleetPanel hostId={host.id} hostName={host.name} /> : null}
        </SecretRow>
      )}
      revokeTitle="Revoke phone host?"
      revokeMessage="The host and every phone it connected are cut off at once; it must be added again to come back."
      revokeConfirm={revoke.confirm}
    />
  );
}
