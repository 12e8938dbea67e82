import { Badge, Button, Card, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createInvitationBody, roleLabels, roleValues, type Invitation, type Role } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';
import { CopyField } from '../../../shared/ui/CopyField';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { invitationLink, useCreateInvitation, useInvitations, useRevokeInvitation } from '../settings.api';

const roleOptions = roleValues.map((value) => ({ value, label: roleLabels[value] }));
const statusColors: Record<Invitation['status'], string> = { pending: 'blue', accepted: 'green', expired: 'gray' };
const statusLabels: Record<Invitation['status'], string> = { pending: 'Pending', accepted: 'Accepted', expired: 'Expired' };

function isRole(value: string | null): value is Role {
  return roleValues.some((role) => role === value);
}

/** Invitation links into the workspace. The link itself is shown once, when it is created. */
export function InvitationsSection() {
  const invitations = useInvitations(true);
  const create = useCreateInvitation();
  const revoke = useRevokeInvitation();
  const [role, setRole] = useState<Role>('va');
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | undefined>();
  const [link, setLink] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createInvitationBody.safeParse({ role, email: email.trim() || undefined });
    if (!parsed.success) {
      setEmailError(parsed.error.issues[0]?.message);
      return;
    }
    setEmailError(undefined);
    create.mutate(parsed.data, {
      onSuccess: ({ invitation }) => {
        setLink(invitationLink(invitation.url));
        setEmail('');
        toast('Invitation Created', 'Copy the link and send it to your teammate.');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to create invitation')),
    });
  };

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast('Invitation Revoked', 'The link no longer works.');
        setRevoking(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to revoke invitation')),
    });
  };

  const list = invitations.data ?? [];

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="invitations-title">
      <Title order={2} fz="lg" mb="md" id="invitations-title">
        Invitations
      </Title>
      <form onSubmit={submit}>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <Select
            label="Role"
            data={roleOptions}
            value={role}
            allowDeselect={false}
            onChange={(value) => isRole(value) && setRole(value)}
            w={{ base: '100%', xs: 180 }}
          />
          <TextInput
            label="Email (optional)"
            type="email"
            value={email}
            error={emailError}
            onChange={(event) => setEmail(event.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
          <Button type="submit" loading={create.isPending} mt={{ base: 0, xs: 25 }}>
            Create Invitation
          </Button>
        </Group>
      </form>
      {link ? (
        <Stack gap={4} mt="md">
          <CopyField label="New invitation link" value={link} />
          <Text size="xs" c="dimmed">
            This link is shown only now; create a new one if it gets lost.
          </Text>
        </Stack>
      ) : null}

      <Title order={3} fz="md" mt="lg" mb="sm">
        Sent invitations
      </Title>
      {invitations.isPending ? (
        <LoadingState label="Loading invitations..." />
      ) : list.length === 0 ? (
        <EmptyText>No invitations yet</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((invitation) => (
            <Paper key={invitation.id} withBorder p="sm" radius="md" component="li">
              <Group justify="space-between" wrap="wrap" gap="sm">
                <div style={{ minWidth: 0 }}>
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {invitation.email ?? 'Any email'}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {roleLabels[invitation.role]} · expires {formatDateTime(invitation.expiresAt)}
                  </Text>
                </div>
                <Group gap="sm">
                  <Badge variant="light" color={statusColors[invitation.status]}>
                    {statusLabels[invitation.status]}
                  </Badge>
                  {invitation.status === 'pending' ? (
                    <Button size="xs" variant="light" color="red" onClick={() => setRevoking(invitation)}>
                      Revoke
                    </Button>
                  ) : null}
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke invitation?"
        message="Anyone holding this link will no longer be able to join."
        confirmLabel="Revoke"
        loading={revoke.isPending}
        onConfirm={confirmRevoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}
