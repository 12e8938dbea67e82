/**
 * The console's dialogs with a form: `FormModal` (full screen on phones) and `ModalForm`, the shell every create and
 * edit dialog shares (the form, its fields in a column, Cancel and the submit button), with `useModalForm` for the
 * values and field errors that start afresh each time the dialog opens.
 */
import { Button, Group, Modal, Stack, type ModalProps } from '@mantine/core';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useIsMobile } from './useIsMobile';

/** A modal that takes the whole screen on phones so long forms stay usable at 375 px. */
export function FormModal(props: ModalProps) {
  const isMobile = useIsMobile();
  return <Modal centered fullScreen={isMobile} closeButtonProps={{ 'aria-label': 'Close' }} {...props} />;
}

export interface ModalFormProps extends Omit<ModalProps, 'children' | 'onSubmit'> {
  /** Called on submit; the page does not reload. */
  onSubmit: () => void;
  /** A request is on its way: the submit button spins and Cancel waits. */
  busy: boolean;
  /** The submit button's words; none for a form that is only read. */
  submitLabel: string | null;
  submitDisabled?: boolean;
  cancelLabel?: string;
  /** The spec's messages are the form's own; the browser's bubbles only where a form has no checks of its own. */
  noValidate?: boolean;
  children: ReactNode;
}

export function ModalForm({ onSubmit, busy, submitLabel, submitDisabled, cancelLabel = 'Cancel', noValidate = true, children, ...modal }: ModalFormProps) {
  return (
    <FormModal {...modal}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
        noValidate={noValidate}
      >
        <Stack gap="md">
          {children}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={modal.onClose} disabled={busy}>
              {cancelLabel}
            </Button>
            {submitLabel === null ? null : (
              <Button type="submit" loading={busy} disabled={submitDisabled}>
                {submitLabel}
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}

/**
 * A dialog form's values and field errors, set back to `initial()` each time the dialog opens (and when `initial`
 * changes while it is open: another item to edit). `set` changes one field and clears its error.
 */
export function useModalForm<V extends object>(opened: boolean, initial: () => V) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Partial<Record<keyof V, string>>>({});

  useEffect(() => {
    if (!opened) return;
    setValues(initial());
    setErrors({});
  }, [opened, initial]);

  const set = useCallback(<K extends keyof V>(key: K, value: V[K]) => {
    setValues((current) => ({ ...current, [key]: value }));
    setErrors((current) => ({ ...current, [key]: undefined }));
  }, []);

  return { values, errors, set, setValues, setErrors };
}
