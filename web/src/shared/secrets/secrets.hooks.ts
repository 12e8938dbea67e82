/**
 * Making a secret that is shown once (an invitation link, a wall link, a phone host's code) and revoking what was
 * made: the create and revoke mutations with their toasts, the form's field error, the secret on screen and the row
 * waiting for its revoke to be confirmed. The server keeps only a hash of each secret, so the screen is the one
 * place it is ever read.
 */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { refusalMessage } from '../refusal';
import { errorToast, toast } from '../toast';

/** A toast's title and message. */
export type ToastText = readonly [title: string, message: string];

/** What a zod `safeParse` answers, as far as the form needs it. */
export type FormParse<T> = { success: true; data: T } | { success: false; error: { issues: readonly { message: string }[] } };

export interface ShowOnceOptions<TBody, TCreated, TSecret> {
  create: UseMutationResult<TCreated, Error, TBody>;
  /** The secret to show, from what the server answered. */
  reveal: (created: TCreated) => TSecret;
  created: (created: TCreated) => ToastText;
  /** The error toast's sentence when the server gives none. */
  failure: string;
  /** Clears the form once the secret is made. */
  onCreated?: () => void;
}

/** The create half: `submit` takes the form's parsed body, shows the first problem or sends it and keeps the secret. */
export function useShowOnce<TBody, TCreated, TSecret>({ create, reveal, created, failure, onCreated }: ShowOnceOptions<TBody, TCreated, TSecret>) {
  const [secret, setSecret] = useState<TSecret | null>(null);
  const [fieldError, setFieldError] = useState<string | undefined>();

  const submit = (parsed: FormParse<TBody>) => {
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message);
      return;
    }
    setFieldError(undefined);
    create.mutate(parsed.data, {
      onSuccess: (answer) => {
        setSecret(reveal(answer));
        onCreated?.();
        toast(...created(answer));
      },
      onError: (error) => errorToast('Error', refusalMessage(error, failure)),
    });
  };

  return { secret, setSecret, fieldError, setFieldError, submit, submitting: create.isPending };
}

export interface RevokeOptions<TItem> {
  revoke: UseMutationResult<unknown, Error, string>;
  revoked: (item: TItem) => ToastText;
  failure: string;
}

/** The props of the confirmation a revoke waits for (spread into `ConfirmModal`). */
export interface RevokeConfirm {
  opened: boolean;
  loading: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/** The revoke half: `ask(item)` opens the confirmation; confirming revokes it and toasts. */
export function useRevoke<TItem extends { id: string }>({ revoke, revoked, failure }: RevokeOptions<TItem>) {
  const [revoking, setRevoking] = useState<TItem | null>(null);

  const onConfirm = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast(...revoked(revoking));
        setRevoking(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, failure)),
    });
  };

  const confirm: RevokeConfirm = { opened: revoking !== null, loading: revoke.isPending, onConfirm, onClose: () => setRevoking(null) };
  return { ask: setRevoking, confirm };
}
