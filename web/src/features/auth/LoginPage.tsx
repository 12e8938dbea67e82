import { Button, Stack, Text, TextInput } from '@mantine/core';
import { refusalMessage } from '../../shared/refusal';
import { messages, type Me, type TwoFactorSetup } from '@farm/contracts';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../shared/api';
import { errorToast, toast } from '../../shared/toast';
import { useAppConfig, useLogin, useLoginCode, useLoginSetup } from './auth.api';
import { AuthCard } from './AuthCard';
import { AuthInput, BackLink, SwitchPrompt } from './AuthFields';
import { RecoveryCodesList } from './components/RecoveryCodesList';
import { TwoFactorSetupFields } from './components/TwoFactorSetupFields';

/** Where the login stands: the password, then possibly a code (or setting two-factor up), then codes to save. */
type Step =
  | { kind: 'password' }
  | { kind: 'code'; challenge: string }
  | { kind: 'setup'; challenge: string; setup?: TwoFactorSetup }
  | { kind: 'recovery'; user: Me; codes: string[] };

export function LoginPage() {
  const navigate = useNavigate();
  const login = useLogin();
  const loginCode = useLoginCode();
  const loginSetup = useLoginSetup();
  const config = useAppConfig();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const prefilled = useRef(false);

  // Sample credentials are offered only by a demo server, and never over what the person typed.
  useEffect(() => {
    const credentials = config.data?.demo ? config.data.demoCredentials : null;
    if (!credentials || prefilled.current) return;
    prefilled.current = true;
    setEmail((current) => current || credentials.email);
    setPassword((current) => current || credentials.password);
  }, [config.data]);

  const welcome = (user: Me) => {
    toast('Login successful', `Welcome back, ${user.name}!`);
    void navigate('/dashboard');
  };

  const startOver = () => {
    setStep({ kind: 'password' });
    setCode('');
  };

  const submitPassword = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate(
      { email, password },
      {
        onSuccess: (answer) => {
          if ('user' in answer) return welcome(answer.user);
          setCode('');
          if (answer.twoFactor === 'code') return setStep({ kind: 'code', challenge: answer.challenge });
          setStep({ kind: 'setup', challenge: answer.challenge });
          loginSetup.mutate(answer.challenge, {
            onSuccess: (setup) => setStep({ kind: 'setup', challenge: answer.challenge, setup }),
            onError: (error) => {
              errorToast('Login failed', refusalMessage(error, 'Please log in again.'));
              startOver();
            },
          });
        },
        onError: (error) => {
          // A throttled address is told to wait; every other failure reads the same, so accounts cannot be probed.
          const throttled = error instanceof ApiError && error.status === 429;
          errorToast('Login failed', throttled ? messages.tooManyAttempts : 'Invalid email or password. Please try again.');
        },
      },
    );
  };

  const submitCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (step.kind !== 'code' && step.kind !== 'setup') return;
    loginCode.mutate(
      { challenge: step.challenge, code },
      {
        onSuccess: ({ user, recoveryCodes }) => {
          if (recoveryCodes) return setStep({ kind: 'recovery', user, codes: recoveryCodes });
          welcome(user);
        },
        onError: (error) => {
          const message = refusalMessage(error, messages.twoFactorCodeWrong);
          errorToast('Login failed', message);
          if (message === messages.loginStepExpired) startOver();
        },
      },
    );
  };

  if (step.kind === 'recovery') {
    return (
      <AuthCard title="Two-factor sign-in is on" subtitle="Save these codes before you continue">
        <Stack gap="md">
          <RecoveryCodesList codes={step.codes} />
          <Button fullWidth onClick={() => welcome(step.user)}>
            I Have Saved My Codes
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  if (step.kind === 'code' || step.kind === 'setup') {
    const setup = step.kind === 'setup';
    return (
      <AuthCard
        title={setup ? 'Set up two-factor sign-in' : 'Two-factor sign-in'}
        subtitle={
          setup
            ? 'Your workspace requires a second step at sign-in for operators.'
            : 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.'
        }
      >
        <form onSubmit={submitCode}>
          <Stack gap="md">
            {setup ? step.setup ? <TwoFactorSetupFields setup={step.setup} /> : <Text size="sm">Preparing your QR code...</Text> : null}
            <TextInput
              label="Code"
              name="code"
              autoComplete="one-time-code"
              inputMode={setup ? 'numeric' : 'text'}
              required
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
              data-autofocus
            />
            <Button type="submit" fullWidth loading={loginCode.isPending} disabled={setup && !step.setup}>
              Verify
            </Button>
            <BackLink onClick={startOver}>Back to Login</BackLink>
          </Stack>
        </form>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Welcome back" subtitle="Sign in to your account">
      <form onSubmit={submitPassword}>
        <Stack gap="md">
          <AuthInput label="Email" type="email" name="email" autoComplete="email" value={email} onValue={setEmail} />
          <AuthInput secret label="Password" name="password" autoComplete="current-password" value={password} onValue={setPassword} />
          <Button type="submit" fullWidth loading={login.isPending}>
            Login
          </Button>
          <SwitchPrompt question="Don't have an account?" to="/signup" label="Sign up" />
          <BackLink to="/">Back to Home</BackLink>
        </Stack>
      </form>
    </AuthCard>
  );
}
