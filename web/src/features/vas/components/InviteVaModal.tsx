import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { createInvitationBody } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { formatDateTime } from '../../../shared/format';
import { useShowOnce } from '../../../shared/secrets/secrets.hooks';
import { CopyField } from '../../../shared/ui/CopyField';
import { FormModal } from '../../../shared/ui/FormModal';
import { invitationLink, useCreateInvitation } from '../../settings/settings.api';

/** Creates a VA invitation and shows the link to send. */
export function InviteVaModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const mutation = useCreateInvitation();
  const [email, setEmail] = useState('');
  const create = useShowOnce({
    create: mutation,
    reveal: ({ invitation }) => ({ link: invitationLink(invitation.url), expiresAt: invitation.expiresAt }),
    created: () => ['Invitation Created', 'Send the link to your virtual assistant.'],
    failure: 'Failed to create invitation',
  });
  const created = create.secret;
  const { setSecret, setFieldError } = create;
  const resetCreate = mutation.reset;

  useEffect(() => {
    if (!opened) return;
    setEmail('');
    setFieldError(undefined);
    setSecret(null);
    resetCreate();
  }, [opened, resetCreate, setSecret, setFieldError]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.submit(createInvitationBody.safeParse({ role: 'va', email: email.trim() || undefined }));
  };

  return (
    <FormModal opened={opened} onClose={onClose} title="Invite VA">
      {created ? (
        <Stack gap="md">
          <Text size="sm">Anyone with this link can join your workspace as a virtual assistant until it expires.</Text>
          <CopyField label="Invitation link" value={created.link} />
          <Text size="xs" c="dimmed">
            Expires {formatDateTime(created.expiresAt)}
          </Text>
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack gap="md">
            <Text size="sm" c="dimmed">
              Create a sign-up link that joins your workspace with the Virtual Assistant role.
            </Text>
            <TextInput
              label="Email (optional)"
              type="email"
              description="Prefills the sign-up form"
              value={email}
              error={create.fieldError}
              onChange={(event) => setEmail(event.currentTarget.value)}
              data-autofocus
            />
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={onClose} disabled={create.submitting}>
                Cancel
              </Button>
              <Button type="submit" loading={create.submitting}>
                Create Invite Link
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </FormModal>
  );
}
