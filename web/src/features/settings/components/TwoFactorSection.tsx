import { Badge, Button, Card, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { messages, type TwoFactorSetup } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { RecoveryCodesList } from '../../auth/components/RecoveryCodesList';
import { TwoFactorSetupFields } from '../../auth/components/TwoFactorSetupFields';
import { useDisableTwoFactor, useEnableTwoFactor, useNewRecoveryCodes, useStartTwoFactor, useTwoFactor } from '../settings.api';

type Dialog = { kind: 'setup'; setup: TwoFactorSetup } | { kind: 'codes'; codes: string[] } | { kind: 'regenerate' } | { kind: 'disable' } | null;

/** Two-factor sign-in for the signed-in person: set it up with an authenticator app, keep recovery codes, turn it off. */
export function TwoFactorSection() {
  const status = useTwoFactor();
  const start = useStartTwoFactor();
  const enable = useEnableTwoFactor();
  const regenerate = useNewRecoveryCodes();
  const disable = useDisableTwoFactor();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();

  const open = (next: Dialog) => {
    setCode('');
    setPassword('');
    setError(undefined);
    setDialog(next);
  };
  const refused = (failure: Error, fallback: string) => setError(refusalMessage(failure, fallback));

  const begin = () =>
    start.mutate(undefined, {
      onSuccess: (setup) => open({ kind: 'setup', setup }),
      onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to start two-factor setup')),
    });

  const confirmSetup = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    enable.mutate(code, {
      onSuccess: ({ recoveryCodes }) => {
        toast('Two-Factor Sign-In On', 'You will be asked for a code when you log in.');
        open({ kind: 'codes', codes: recoveryCodes });
      },
      onError: (failure) => refused(failure, messages.twoFactorCodeWrong),
    });
  };

  const confirmRegenerate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    regenerate.mutate(code, {
      onSuccess: ({ recoveryCodes }) => open({ kind: 'codes', codes: recoveryCodes }),
      onError: (failure) => refused(failure, messages.twoFactorCodeWrong),
    });
  };

  const confirmDisable = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    disable.mutate(
      { password, code },
      {
        onSuccess: () => {
          toast('Two-Factor Sign-In Off', 'Your password alone signs you in again.');
          setDialog(null);
        },
        onError: (failure) => refused(failure, 'Failed to turn two-factor sign-in off'),
      },
    );
  };

  const data = status.data;
  const codeInput = (
    <TextInput
      label="Code"
      autoComplete="one-time-code"
      required
      value={code}
      error={error}
      onChange={(event) => setCode(event.currentTarget.value)}
      data-autofocus
    />
  );

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="two-factor-title">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} fz="lg" id="two-factor-title">
          Two-factor sign-in
        </Title>
        {data ? (
          <Badge variant="light" color={data.enabled ? 'green' : 'gray'}>
            {data.enabled ? 'On' : 'Off'}
          </Badge>
        ) : null}
      </Group>
      {status.isPending || !data ? (
        <LoadingState label="Loading two-factor sign-in..." />
      ) : data.enabled ? (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            A code from your authenticator app is asked for at every login. Recovery codes left: {data.recoveryCodesLeft}.
          </Text>
          {data.required ? (
            <Text size="sm" c="dimmed">
              {messages.twoFactorRequiredByWorkspace}.
            </Text>
          ) : null}
          <Group gap="sm">
            <Button variant="light" onClick={() => open({ kind: 'regenerate' })}>
              New Recovery Codes
            </Button>
            <Button variant="light" color="red" disabled={data.required} onClick={() => open({ kind: 'disable' })}>
              Turn Off
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            Protect your account with a second step at login: a 6-digit code from an authenticator app on your phone.
          </Text>
          <Group>
            <Button onClick={begin} loading={start.isPending}>
              Turn On Two-Factor Sign-In
            </Button>
          </Group>
        </Stack>
      )}

      <FormModal opened={dialog?.kind === 'setup'} onClose={() => setDialog(null)} title="Set up two-factor sign-in">
        {dialog?.kind === 'setup' ? (
          <form onSubmit={confirmSetup}>
            <Stack gap="md">
              <TwoFactorSetupFields setup={dialog.setup} />
              {codeInput}
              <Button type="submit" loading={enable.isPending}>
                Verify and Turn On
              </Button>
            </Stack>
          </form>
        ) : null}
      </FormModal>

      <FormModal opened={dialog?.kind === 'codes'} onClose={() => setDialog(null)} title="Recovery codes">
        {dialog?.kind === 'codes' ? (
          <Stack gap="md">
            <RecoveryCodesList codes={dialog.codes} />
            <Button onClick={() => setDialog(null)}>I Have Saved My Codes</Button>
          </Stack>
        ) : null}
      </FormModal>

      <FormModal opened={dialog?.kind === 'regenerate'} onClose={() => setDialog(null)} title="New recovery codes">
        <form onSubmit={confirmRegenerate}>
          <Stack gap="md">
            <Text size="sm">Enter a code from your authenticator app. Your old recovery codes stop working.</Text>
            {codeInput}
            <Button type="submit" loading={regenerate.isPending}>
              Make New Codes
            </Button>
          </Stack>
        </form>
      </FormModal>

      <FormModal opened={dialog?.kind === 'disable'} onClose={() => setDialog(null)} title="Turn off two-factor sign-in">
        <form onSubmit={confirmDisable}>
          <Stack gap="md">
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            {codeInput}
            <Button type="submit" color="red" loading={disable.isPending}>
              Turn Off
            </Button>
          </Stack>
        </form>
      </FormModal>
    </Card>
  );
}
