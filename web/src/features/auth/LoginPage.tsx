import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { messages } from '@farm/api/contracts';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../shared/api';
import { errorToast, toast } from '../../shared/toast';
import { useAppConfig, useLogin } from './auth.api';
import { AuthCard } from './AuthCard';

export function LoginPage() {
  const navigate = useNavigate();
  const login = useLogin();
  const config = useAppConfig();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const prefilled = useRef(false);

  // Sample credentials are offered only by a demo server, and never over what the person typed.
  useEffect(() => {
    const credentials = config.data?.demo ? config.data.demoCredentials : null;
    if (!credentials || prefilled.current) return;
    prefilled.current = true;
    setEmail((current) => current || credentials.email);
    setPassword((current) => current || credentials.password);
  }, [config.data]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate(
      { email, password },
      {
        onSuccess: ({ user }) => {
          toast('Login successful', `Welcome back, ${user.name}!`);
          void navigate('/dashboard');
        },
        onError: (error) => {
          // A throttled address is told to wait; every other failure reads the same, so accounts cannot be probed.
          const throttled = error instanceof ApiError && error.status === 429;
          errorToast('Login failed', throttled ? messages.tooManyAttempts : 'Invalid email or password. Please try again.');
        },
      },
    );
  };

  return (
    <AuthCard title="Welcome back" subtitle="Sign in to your account">
      <form onSubmit={submit}>
        <Stack gap="md">
          <TextInput
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <Button type="submit" fullWidth loading={login.isPending}>
            Login
          </Button>
          <Text size="sm" ta="center" c="dimmed">
            Don&apos;t have an account?{' '}
            <Anchor component={Link} to="/signup" underline="always">
              Sign up
            </Anchor>
          </Text>
          <Anchor component={Link} to="/" size="sm" ta="center" c="dimmed">
            <IconArrowLeft size={14} style={{ verticalAlign: 'middle', marginRight: 4 }} aria-hidden />
            Back to Home
          </Anchor>
        </Stack>
      </form>
    </AuthCard>
  );
}
