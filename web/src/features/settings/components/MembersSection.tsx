import { Avatar, Badge, Button, Card, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { useState } from 'react';
import { roleLabels, roleValues, type Me, type Role, type User } from '@farm/contracts';
import { initials } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { CopyField } from '../../../shared/ui/CopyField';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';
import { FormModal } from '../../../shared/ui/FormModal';
import {
  invitationLink,
  useApproveReset,
  useCreatePasswordReset,
  useEndMemberSessions,
  useRequestReset,
  useResetRequests,
  useUpdateMember,
  useUsers,
} from '../settings.api';

const roleOptions = roleValues.map((value) => ({ value, label: roleLabels[value] }));

function isRole(value: string | null): value is Role {
  return roleValues.some((role) => role === value);
}

/** Workspace members; operators change roles and (de)activate others, never themselves. */
export function MembersSection({ me }: { me: Me }) {
  const users = useUsers();
  const update = useUpdateMember();
  const createReset = useCreatePasswordReset();
  const [resetFor, setResetFor] = useState<User | null>(null);
  const [resetLink, setResetLink] = useState<{ member: User; url: string } | null>(null);
  const canManage = me.role === 'operator';
  // An operator's reset takes two operators: one asks here, another approves below.
  const requests = useResetRequests(canManage);
  const requestReset = useRequestReset();
  const approve = useApproveReset();
  const endSessions = useEndMemberSessions();
  const [endFor, setEndFor] = useState<User | null>(null);

  const askReset = (member: User) => {
    requestReset.mutate(member.id, {
      onSuccess: () => toast('Reset Requested', `Another operator must approve the reset of ${member.name}'s password.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to request the reset')),
    });
  };

  const approveReset = (request: { id: string; userId: string; userName: string }) => {
    approve.mutate(request.id, {
      onSuccess: ({ url }) => {
        const member = (users.data ?? []).find((user) => user.id === request.userId);
        if (member) setResetLink({ member, url: invitationLink(url) });
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to approve the reset')),
    });
  };

  const endMemberSessions = () => {
    const member = endFor;
    if (!member) return;
    endSessions.mutate(member.id, {
      onSuccess: () => {
        setEndFor(null);
        toast('Sessions Ended', `${member.name} is signed out everywhere.`);
      },
      onError: (error) => {
        setEndFor(null);
        errorToast('Error', refusalMessage(error, 'Failed to end the sessions'));
      },
    });
  };

  const makeResetLink = () => {
    const member = resetFor;
    if (!member) return;
    createReset.mutate(member.id, {
      onSuccess: ({ url }) => {
        setResetFor(null);
        setResetLink({ member, url: invitationLink(url) });
      },
      onError: (error) => {
        setResetFor(null);
        errorToast('Error', refusalMessage(error, 'Failed to make a reset link'));
      },
    });
  };

  const change = (member: User, body: { role?: Role; isActive?: boolean }, done: string) => {
    update.mutate(
      { id: member.id, body },
      {
        onSuccess: () => toast('Member Updated', done),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update member')),
      },
    );
  };

  const list = users.data ?? [];

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="members-title">
      <Title order={2} fz="lg" mb="md" id="members-title">
        Members
      </Title>
      {canManage && (requests.data ?? []).length > 0 ? (
        <Stack gap="xs" mb="md" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Password resets waiting for approval">
          {(requests.data ?? []).map((request) => {
            const mayApprove = request.requestedById !== me.id && request.userId !== me.id;
            return (
              <Paper key={request.id} withBorder p="sm" radius="md" component="li" bg="yellow.0" aria-label={`Reset of ${request.userName}`}>
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <Text size="sm">
                    {request.requestedByName} asked to reset {request.userName}'s password.{' '}
                    {mayApprove ? 'A second operator must approve it.' : 'Waiting for another operator to approve it.'}
                  </Text>
                  {mayApprove ? (
                    <Button size="xs" loading={approve.isPending && approve.variables === request.id} onClick={() => approveReset(request)}>
                      Approve
                    </Button>
                  ) : null}
                </Group>
              </Paper>
            );
          })}
        </Stack>
      ) : null}
      {users.isPending ? (
        <LoadingState label="Loading members..." />
      ) : list.length === 0 ? (
        <EmptyText>No members yet</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((member) => {
            const self = member.id === me.id;
            const busy = update.isPending && update.variables.id === member.id;
            return (
              <Paper key={member.id} withBorder p="sm" radius="md" component="li" aria-label={member.name}>
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <Group gap="sm" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 220px' }}>
                    <Avatar radius="xl" color="blue">
                      {initials(member.name)}
                    </Avatar>
                    <div style={{ minWidth: 0 }}>
                      <Text fw={600} truncate="end">
                        {member.name}
                        {self ? ' (you)' : ''}
                      </Text>
                      <Text size="sm" c="dimmed" truncate="end">
                        {member.email}
                      </Text>
                    </div>
                  </Group>
                  <Group gap="sm" wrap="wrap">
                    {canManage && !self ? (
                      <Select
                        aria-label={`Role of ${member.name}`}
                        data={roleOptions}
                        value={member.role}
                        allowDeselect={false}
                        disabled={busy}
                        onChange={(value) => {
                          if (isRole(value) && value !== member.role) change(member, { role: value }, `${member.name} is now a ${roleLabels[value]}.`);
                        }}
                        w={180}
                      />
                    ) : (
                      <Badge variant="outline">{roleLabels[member.role]}</Badge>
                    )}
                    <Badge variant="light" color={member.isActive ? 'green' : 'gray'}>
                      {member.isActive ? 'Active' : 'Deactivated'}
                    </Badge>
                    {canManage && !self ? (
                      <Button
                        size="xs"
                        variant="light"
                        color={member.isActive ? 'red' : 'green'}
                        disabled={busy}
                        onClick={() =>
                          change(
                            member,
                            { isActive: !member.isActive },
                            member.isActive ? `${member.name} can no longer sign in.` : `${member.name} can sign in again.`,
                          )
                        }
                      >
                        {member.isActive ? 'Deactivate' : 'Reactivate'}
                      </Button>
                    ) : null}
                    {canManage && !self && member.isActive && member.role === 'va' && !member.resetsAsOperator ? (
                      <Button size="xs" variant="default" onClick={() => setResetFor(member)}>
                        Reset Password
                      </Button>
                    ) : null}
                    {canManage && !self && member.isActive && (member.role === 'operator' || member.resetsAsOperator) ? (
                      <Button
                        size="xs"
                        variant="default"
                        loading={requestReset.isPending && requestReset.variables === member.id}
                        onClick={() => askReset(member)}
                      >
                        Request Reset
                      </Button>
                    ) : null}
                    {canManage && !self && member.isActive ? (
                      <Button size="xs" variant="default" onClick={() => setEndFor(member)}>
                        End Sessions
                      </Button>
                    ) : null}
                  </Group>
                </Group>
              </Paper>
            );
          })}
        </Stack>
      )}
      <ConfirmModal
        opened={resetFor !== null}
        title="Reset password"
        message={
          resetFor ? `Make a one-time link for ${resetFor.name} to choose a new password? It is valid for 1 hour; using it signs them out everywhere.` : ''
        }
        confirmLabel="Make Reset Link"
        loading={createReset.isPending}
        onConfirm={makeResetLink}
        onClose={() => setResetFor(null)}
      />
      <ConfirmModal
        opened={endFor !== null}
        title="End sessions"
        message={endFor ? `Sign ${endFor.name} out everywhere? Their open pages and live screens close at once; they can sign in again.` : ''}
        confirmLabel="End Sessions"
        loading={endSessions.isPending}
        onConfirm={endMemberSessions}
        onClose={() => setEndFor(null)}
      />
      <FormModal opened={resetLink !== null} onClose={() => setResetLink(null)} title="Password reset link">
        {resetLink ? (
          <Stack gap="md">
            <Text size="sm">Send this link to {resetLink.member.name}. It works once, for 1 hour. It is shown only now.</Text>
            <CopyField label="Password reset link" value={resetLink.url} />
            <Button onClick={() => setResetLink(null)}>Done</Button>
          </Stack>
        ) : null}
      </FormModal>
    </Card>
  );
}
