import { Alert, Button, Stack, Text } from '@mantine/core';
import { refusalMessage } from '../../shared/refusal';
import { messages, passwordResetBody } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorToast, toast } from '../../shared/toast';
import { LoadingState } from '../../shared/ui/LoadingState';
import { usePasswordResetPreview, useResetPassword } from './auth.api';
import { AuthCard } from './AuthCard';
import { AuthInput, BackLink } from './AuthFields';

/** A member opens the one-time link an operator made for them and chooses a new password. */
export function ResetPasswordPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');
  const preview = usePasswordResetPreview(token);
  const reset = useResetPassword();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({});

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!token) return;
    const parsed = passwordResetBody.safeParse({ token, password });
    if (!parsed.success) {
      setErrors({ password: parsed.error.issues.find((issue) => issue.path[0] === 'password')?.message ?? parsed.error.issues[0]?.message });
      return;
    }
    if (password !== confirm) {
      setErrors({ confirm: 'The two passwords do not match' });
      return;
    }
    setErrors({});
    reset.mutate(parsed.data, {
      onSuccess: () => {
        toast('Password Updated', 'You can now log in with your new password.');
        void navigate('/login');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to reset the password')),
    });
  };

  const invalid = !token || preview.isError;

  return (
    <AuthCard title="Reset your password" subtitle={preview.data ? `Choose a new password for ${preview.data.email}` : 'Choose a new password'}>
      {invalid ? (
        <Stack gap="md">
          <Alert variant="light" color="red" role="alert">
            {messages.passwordResetInvalid}
          </Alert>
          <Text size="sm" c="dimmed">
            Ask an operator of your workspace for a new link.
          </Text>
        </Stack>
      ) : preview.isPending ? (
        <LoadingState label="Checking the link..." />
      ) : (
        <form onSubmit={submit}>
          <Stack gap="md">
            <AuthInput secret label="New Password" name="password" autoComplete="new-password" value={password} error={errors.password} onValue={setPassword} />
            <AuthInput secret label="Confirm Password" name="confirm" autoComplete="new-password" value={confirm} error={errors.confirm} onValue={setConfirm} />
            <Text size="sm" c="dimmed">
              Setting a new password signs you out on every device.
            </Text>
            <Button type="submit" fullWidth loading={reset.isPending}>
              Set New Password
            </Button>
          </Stack>
        </form>
      )}
      <BackLink to="/login" block>
        Back to Login
      </BackLink>
    </AuthCard>
  );
}
