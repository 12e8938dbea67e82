import { Alert, Button, Select, Stack } from '@mantine/core';
import { IconArrowLeft, IconMailOpened } from '@tabler/icons-react';
import { messages, roleLabels, roleValues, signupBody, type Role } from '@farm/contracts';
import { browserTimeZone } from '../../shared/timezone';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { refusalMessage } from '../../shared/refusal';
import { errorToast, toast } from '../../shared/toast';
import { useInvitationPreview, useSignup } from './auth.api';
import { AuthCard } from './AuthCard';
import { AuthInput, SwitchPrompt } from './AuthFields';

const roleOptions = roleValues.map((value) => ({ value, label: roleLabels[value] }));

type FieldErrors = Partial<Record<'name' | 'email' | 'password', string>>;

function isRole(value: string | null): value is Role {
  return value === 'operator' || value === 'va';
}

export function SignupPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const inviteToken = searchParams.get('invite');
  const invitation = useInvitationPreview(inviteToken);
  const preview = invitation.data;
  const signup = useSignup();

  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});

  // An invitation decides the role and may name the address it was sent to.
  useEffect(() => {
    if (!preview) return;
    setRole(preview.role);
    if (preview.email) setEmail((current) => current || (preview.email ?? ''));
  }, [preview]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!role) {
      errorToast(messages.roleRequired, 'Please select your role to continue.');
      return;
    }
    const parsed = signupBody.safeParse({
      name,
      email,
      password,
      role,
      inviteToken: preview && inviteToken ? inviteToken : undefined,
      // An operator's signup makes the workspace: its days are counted in this browser's zone.
      timeZone: role === 'operator' && !(preview && inviteToken) ? browserTimeZone() : undefined,
    });
    if (!parsed.success) {
      const next: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if ((field === 'name' || field === 'email' || field === 'password') && !next[field]) next[field] = issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    signup.mutate(parsed.data, {
      onSuccess: (answer) => {
        if (!('user' in answer)) {
          // The workspace requires two-factor sign-in of operators: the login sets it up before anything else.
          toast('Account created successfully', 'Your workspace requires two-factor sign-in: log in to set it up.');
          void navigate('/login');
          return;
        }
        toast('Account created successfully', `Welcome, ${answer.user.name}!`);
        void navigate('/dashboard');
      },
      onError: (error) => errorToast('Signup failed', refusalMessage(error, 'Please try again.')),
    });
  };

  const busy = signup.isPending;

  return (
    <AuthCard title="Get Started" subtitle="Create your account">
      {inviteToken && preview ? (
        <Alert variant="light" color="blue" icon={<IconMailOpened />} mb="md" title={`Join ${preview.workspaceName}`}>
          You were invited to {preview.workspaceName} as a {roleLabels[preview.role]}.
        </Alert>
      ) : null}
      {inviteToken && invitation.isError ? (
        <Alert variant="light" color="red" mb="md" role="alert">
          {messages.invitationInvalid}
        </Alert>
      ) : null}
      <form onSubmit={submit}>
        <Stack gap="md">
          <AuthInput label="Full Name" name="name" autoComplete="name" value={name} error={errors.name} onValue={setName} />
          <AuthInput label="Email" type="email" name="email" autoComplete="email" value={email} error={errors.email} onValue={setEmail} />
          <AuthInput secret label="Password" name="password" autoComplete="new-password" value={password} error={errors.password} onValue={setPassword} />
          <Select
            label="I am a..."
            placeholder="Select your role"
            data={roleOptions}
            value={role}
            onChange={(value) => setRole(isRole(value) ? value : null)}
            disabled={Boolean(preview)}
            description={preview ? 'Set by your invitation' : undefined}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
          <Button type="submit" fullWidth disabled={busy}>
            {busy ? 'Creating Account...' : 'Create Account'}
          </Button>
          <SwitchPrompt question="Already have an account?" to="/login" label="Login" />
          <Button variant="subtle" color="gray" leftSection={<IconArrowLeft size={14} />} onClick={() => void navigate('/')}>
            Back to Home
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
