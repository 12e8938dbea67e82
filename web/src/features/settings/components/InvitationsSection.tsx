/** Settings → Invitations: links into the workspace. The link itself is shown once, when it is created. */
import { Select, TextInput } from '@mantine/core';
import { createInvitationBody, roleLabels, roleValues, type Invitation, type Role } from '@farm/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format';
import { useRevoke, useShowOnce } from '../../../shared/secrets/secrets.hooks';
import { SecretRow, SecretSection, ShownOnceLink } from '../../../shared/secrets/SecretSection';
import { invitationLink, useCreateInvitation, useInvitations, useRevokeInvitation } from '../settings.api';

const roleOptions = roleValues.map((value) => ({ value, label: roleLabels[value] }));
const statusColors: Record<Invitation['status'], string> = { pending: 'blue', accepted: 'green', expired: 'gray' };
const statusLabels: Record<Invitation['status'], string> = { pending: 'Pending', accepted: 'Accepted', expired: 'Expired' };

function isRole(value: string | null): value is Role {
  return roleValues.some((role) => role === value);
}

export function InvitationsSection() {
  const invitations = useInvitations(true);
  const [role, setRole] = useState<Role>('va');
  const [email, setEmail] = useState('');
  const create = useShowOnce({
    create: useCreateInvitation(),
    reveal: ({ invitation }) => invitationLink(invitation.url),
    created: () => ['Invitation Created', 'Copy the link and send it to your teammate.'],
    failure: 'Failed to create invitation',
    onCreated: () => setEmail(''),
  });
  const revoke = useRevoke<Invitation>({
    revoke: useRevokeInvitation(),
    revoked: () => ['Invitation Revoked', 'The link no longer works.'],
    failure: 'Failed to revoke invitation',
  });

  return (
    <SecretSection
      id="invitations"
      title="Invitations"
      fields={
        <>
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
            error={create.fieldError}
            onChange={(event) => setEmail(event.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
        </>
      }
      submitLabel="Create Invitation"
      submitting={create.submitting}
      onSubmit={() => create.submit(createInvitationBody.safeParse({ role, email: email.trim() || undefined }))}
      shown={create.secret ? <ShownOnceLink label="New invitation link" value={create.secret} /> : null}
      listTitle="Sent invitations"
      items={invitations}
      loadingLabel="Loading invitations..."
      emptyText="No invitations yet"
      renderItem={(invitation) => (
        <SecretRow
          key={invitation.id}
          name={invitation.email ?? 'Any email'}
          meta={`${roleLabels[invitation.role]} · expires ${formatDateTime(invitation.expiresAt)}`}
          badge={{ label: statusLabels[invitation.status], color: statusColors[invitation.status] }}
          {...(invitation.status === 'pending' ? { onRevoke: () => revoke.ask(invitation) } : {})}
        />
      )}
      revokeTitle="Revoke invitation?"
      revokeMessage="Anyone holding this link will no longer be able to join."
      revokeConfirm={revoke.confirm}
    />
  );
}
