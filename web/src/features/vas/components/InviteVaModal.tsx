import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createInvitationBody } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { CopyField } from '../../../shared/ui/CopyField';
import { FormModal } from '../../../shared/ui/FormModal';
import { invitationLink, useCreateInvitation } from '../../settings/settings.api';

/** Creates a VA invitation and shows the link to send. */
export function InviteVaModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateInvitation();
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | undefined>();
  const [created, setCreated] = useState<{ link: string; expiresAt: string } | null>(null);
  const resetCreate = create.reset;

  useEffect(() => {
    if (!opened) return;
    setEmail('');
    setEmailError(undefined);
    setCreated(null);
    resetCreate();
  }, [opened, resetCreate]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createInvitationBody.safeParse({ role: 'va', email: email.trim() || undefined });
    if (!parsed.success) {
      setEmailError(parsed.error.issues[0]?.message);
      return;
    }
    setEmailError(undefined);
    create.mutate(parsed.data, {
      onSuccess: ({ invitation }) => {
        setCreated({ link: invitationLink(invitation.url), expiresAt: invitation.expiresAt });
        toast('Invitation Created', 'Send the link to your virtual assistant.');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to create invitation')),
    });
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
              error={emailError}
              onChange={(event) => setEmail(event.currentTarget.value)}
              data-autofocus
            />
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={onClose} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create Invite Link
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </FormModal>
  );
}
