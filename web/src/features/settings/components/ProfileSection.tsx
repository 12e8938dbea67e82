import { Button, Card, Divider, Group, PasswordInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { roleLabels, updateMeBody, type Me } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { errorToast, toast } from '../../../shared/toast';
import { useUpdateMe } from '../settings.api';

/** The person's own name and password. */
export function ProfileSection({ me }: { me: Me }) {
  const updateName = useUpdateMe();
  const updatePassword = useUpdateMe();
  const [name, setName] = useState(me.name);
  const [nameError, setNameError] = useState<string | undefined>();
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | undefined>();

  useEffect(() => setName(me.name), [me.name]);

  const saveName = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = updateMeBody.safeParse({ name });
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    setNameError(undefined);
    updateName.mutate(parsed.data, {
      onSuccess: () => toast('Profile Updated', 'Your name has been saved.'),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update profile')),
    });
  };

  const savePassword = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = updateMeBody.safeParse({ currentPassword, password });
    if (!parsed.success) {
      setPasswordError(parsed.error.issues[0]?.message);
      return;
    }
    setPasswordError(undefined);
    updatePassword.mutate(parsed.data, {
      onSuccess: () => {
        setCurrentPassword('');
        setPassword('');
        toast('Password Changed', 'Use your new password next time you log in.');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to change password')),
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="profile-title">
      <Title order={2} fz="lg" id="profile-title">
        Profile
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {me.email} · {roleLabels[me.role]}
      </Text>
      <form onSubmit={saveName}>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            label="Name"
            required
            value={name}
            error={nameError}
            onChange={(event) => setName(event.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
          <Button type="submit" loading={updateName.isPending} disabled={name.trim() === me.name}>
            Save Name
          </Button>
        </Group>
      </form>
      <Divider my="lg" />
      <form onSubmit={savePassword}>
        <Stack gap="sm">
          <Title order={3} fz="md">
            Change password
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <PasswordInput
              label="Current Password"
              autoComplete="current-password"
              required
              value={currentPassword}
              onChange={(event) => setCurrentPassword(event.currentTarget.value)}
            />
            <PasswordInput
              label="New Password"
              autoComplete="new-password"
              required
              value={password}
              error={passwordError}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button type="submit" loading={updatePassword.isPending}>
              Change Password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
