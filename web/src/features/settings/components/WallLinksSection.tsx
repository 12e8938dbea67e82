/** Settings → Wall screens: read-only links that open the wall on a TV without signing in, each shown once. */
import { TextInput } from '@mantine/core';
import { createWallLinkBody, type WallLink } from '@farm/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format';
import { useRevoke, useShowOnce } from '../../../shared/secrets/secrets.hooks';
import { SecretRow, SecretSection, ShownOnceLink } from '../../../shared/secrets/SecretSection';
import { invitationLink, useCreateWallLink, useRevokeWallLink, useWallLinks } from '../settings.api';

export function WallLinksSection() {
  const links = useWallLinks(true);
  const [name, setName] = useState('');
  const create = useShowOnce({
    create: useCreateWallLink(),
    reveal: (link) => invitationLink(link.url),
    created: () => ['Wall Link Created', 'Open the link on the screen that should show the wall.'],
    failure: 'Failed to create wall link',
    onCreated: () => setName(''),
  });
  const revoke = useRevoke<WallLink>({
    revoke: useRevokeWallLink(),
    revoked: () => ['Wall Link Revoked', 'Screens using this link stop updating and show that it was revoked.'],
    failure: 'Failed to revoke wall link',
  });

  return (
    <SecretSection
      id="wall-links"
      title="Wall screens"
      description="A wall link shows every phone of the workspace on a TV, read-only and without signing in."
      fields={
        <TextInput
          label="Screen name (optional)"
          placeholder="Wall screen"
          value={name}
          error={create.fieldError}
          maxLength={80}
          onChange={(event) => setName(event.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
      }
      submitLabel="Create Wall Link"
      submitting={create.submitting}
      onSubmit={() => create.submit(createWallLinkBody.safeParse({ name: name.trim() || undefined }))}
      shown={create.secret ? <ShownOnceLink label="New wall link" value={create.secret} /> : null}
      listTitle="Wall links"
      items={links}
      loadingLabel="Loading wall links..."
      emptyText="No wall links yet"
      renderItem={(link) => (
        <SecretRow
          key={link.id}
          label={link.name}
          name={link.name}
          meta={`Created ${formatDateTime(link.createdAt)}${link.revokedAt ? ` · revoked ${formatDateTime(link.revokedAt)}` : ''}`}
          badge={link.revokedAt ? { label: 'Revoked', color: 'gray' } : { label: 'Active', color: 'green' }}
          {...(link.revokedAt ? {} : { onRevoke: () => revoke.ask(link) })}
        />
      )}
      revokeTitle="Revoke wall link?"
      revokeMessage="Screens showing the wall with this link stop updating at once."
      revokeConfirm={revoke.confirm}
    />
  );
}
