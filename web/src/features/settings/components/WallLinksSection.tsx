import { Badge, Button, Card, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createWallLinkBody, type WallLink } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';
import { CopyField } from '../../../shared/ui/CopyField';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { invitationLink, useCreateWallLink, useRevokeWallLink, useWallLinks } from '../settings.api';

/** Read-only links that open the wall screen on a TV without signing in. The link is shown once, when created. */
export function WallLinksSection() {
  const links = useWallLinks(true);
  const create = useCreateWallLink();
  const revoke = useRevokeWallLink();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<WallLink | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createWallLinkBody.safeParse({ name: name.trim() || undefined });
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    setNameError(undefined);
    create.mutate(parsed.data.name, {
      onSuccess: (link) => {
        setCreated(invitationLink(link.url));
        setName('');
        toast('Wall Link Created', 'Open the link on the screen that should show the wall.');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to create wall link')),
    });
  };

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast('Wall Link Revoked', 'Screens using this link stop updating and show that it was revoked.');
        setRevoking(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to revoke wall link')),
    });
  };

  const list = links.data ?? [];

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="wall-links-title">
      <Title order={2} fz="lg" mb={4} id="wall-links-title">
        Wall screens
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        A wall link shows every phone of the workspace on a TV, read-only and without signing in.
      </Text>
      <form onSubmit={submit}>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            label="Screen name (optional)"
            placeholder="Wall screen"
            value={name}
            error={nameError}
            maxLength={80}
            onChange={(event) => setName(event.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
          <Button type="submit" loading={create.isPending} mt={{ base: 0, xs: 25 }}>
            Create Wall Link
          </Button>
        </Group>
      </form>
      {created ? (
        <Stack gap={4} mt="md">
          <CopyField label="New wall link" value={created} />
          <Text size="xs" c="dimmed">
            This link is shown only now; create a new one if it gets lost.
          </Text>
        </Stack>
      ) : null}

      <Title order={3} fz="md" mt="lg" mb="sm">
        Wall links
      </Title>
      {links.isPending ? (
        <LoadingState label="Loading wall links..." />
      ) : list.length === 0 ? (
        <EmptyText>No wall links yet</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((link) => (
            <Paper key={link.id} withBorder p="sm" radius="md" component="li" aria-label={link.name}>
              <Group justify="space-between" wrap="wrap" gap="sm">
                <div style={{ minWidth: 0 }}>
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {link.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    Created {formatDateTime(link.createdAt)}
                    {link.revokedAt ? ` · revoked ${formatDateTime(link.revokedAt)}` : ''}
                  </Text>
                </div>
                <Group gap="sm">
                  <Badge variant="light" color={link.revokedAt ? 'gray' : 'green'}>
                    {link.revokedAt ? 'Revoked' : 'Active'}
                  </Badge>
                  {link.revokedAt ? null : (
                    <Button size="xs" variant="light" color="red" onClick={() => setRevoking(link)}>
                      Revoke
                    </Button>
                  )}
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke wall link?"
        message="Screens showing the wall with this link stop updating at once."
        confirmLabel="Revoke"
        loading={revoke.isPending}
        onConfirm={confirmRevoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}
