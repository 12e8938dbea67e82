import { Anchor, PasswordInput, Text, TextInput } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

interface AuthInputProps {
  label: string;
  name: string;
  autoComplete: string;
  value: string;
  onValue: (value: string) => void;
  error?: string;
  type?: 'email';
  /** A password field (with its show/hide toggle) instead of a text one. */
  secret?: boolean;
}

/** A required field of the sign-in forms, bound to one piece of state. */
export function AuthInput({ secret = false, onValue, ...props }: AuthInputProps) {
  const Input = secret ? PasswordInput : TextInput;
  return <Input required {...props} onChange={(event) => onValue(event.currentTarget.value)} />;
}

type BackLinkProps = { children: ReactNode; block?: boolean } & ({ to: string } | { onClick: () => void });

/** The quiet "Back to …" link under a sign-in form: to a page, or a button that goes a step back. */
export function BackLink({ children, block = false, ...target }: BackLinkProps) {
  const look = { size: 'sm', ta: 'center', c: 'dimmed', ...(block ? { display: 'block', mt: 'md' } : {}) } as const;
  const content = (
    <>
      <IconArrowLeft size={14} style={{ verticalAlign: 'middle', marginRight: 4 }} aria-hidden />
      {children}
    </>
  );
  if ('to' in target) {
    return (
      <Anchor component={Link} to={target.to} {...look}>
        {content}
      </Anchor>
    );
  }
  return (
    <Anchor component="button" type="button" onClick={target.onClick} {...look}>
      {content}
    </Anchor>
  );
}

/** "Already have an account? Login": the line that sends a person to the other sign-in form. */
export function SwitchPrompt({ question, to, label }: { question: string; to: string; label: string }) {
  return (
    <Text size="sm" ta="center" c="dimmed">
      {question}{' '}
      <Anchor component={Link} to={to} underline="always">
        {label}
      </Anchor>
    </Text>
  );
}
