import { Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { FormModal } from '../../../shared/ui/FormModal';
import type { NewStep, SelectorKind } from '../recipe.steps';
import { addKinds, type AddKind } from './StepList';

const selectorKinds = [
  { value: 'id', label: 'Resource id' },
  { value: 'text', label: 'Text' },
  { value: 'desc', label: 'Description (accessibility label)' },
];

const explain: Record<AddKind, string> = {
  wait_for: 'Waits until this shows on the screen (the run misses when it never does).',
  expect: 'Checks that this shows now; the run ends with a reason when it does not.',
  when: 'If this shows (a popup, a sheet), taps it away or presses Back; otherwise goes on.',
  pause: 'Waits a while, like a person would: 2s, 800ms, or a range like 2..6s.',
};

export interface AddStepModalProps {
  /** The kind asked for and the step it goes after; null: closed. */
  adding: { kind: AddKind; after: number } | null;
  onAdd: (step: NewStep) => void;
  onClose: () => void;
}

/** Asks what a new Wait for, Check, Guard or Pause step looks for, then adds it to the document. */
export function AddStepModal({ adding, onAdd, onClose }: AddStepModalProps) {
  const [kind, setKind] = useState<SelectorKind>('id');
  const [value, setValue] = useState('');
  const [timeout, setTimeoutText] = useState('10s');
  const [then, setThen] = useState<'tap' | 'back'>('tap');
  const [duration, setDuration] = useState('2s');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!adding) return;
    setValue('');
    setError(null);
  }, [adding]);

  const title = adding ? `${addKinds.find((item) => item.kind === adding.kind)?.label ?? 'Add'} step after step ${adding.after + 1}` : '';
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!adding) return;
    if (adding.kind === 'pause') {
      if (!duration.trim()) return setError('Say how long to pause, like 2s');
      return onAdd({ do: 'pause', for: duration });
    }
    if (!value.trim()) return setError('Say what to look for: an id, a text or a description');
    const target = { kind, value };
    if (adding.kind === 'when') return onAdd({ do: 'when', target, action: then });
    return onAdd({ do: adding.kind, target, timeout });
  };

  return (
    <FormModal opened={adding !== null} onClose={onClose} title={title}>
      {adding ? (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              {explain[adding.kind]}
            </Text>
            {adding.kind === 'pause' ? (
              <TextInput label="How long" value={duration} onChange={(event) => setDuration(event.currentTarget.value)} error={error} data-autofocus />
            ) : (
              <>
                <Select
                  label="Find it by"
                  data={selectorKinds}
                  value={kind}
                  allowDeselect={false}
                  onChange={(next) => setKind((next ?? 'id') as SelectorKind)}
                />
                <TextInput
                  label="Selector value"
                  description="As Inspect shows it, like com.instagram.android:id/feed_tab or Not now"
                  value={value}
                  onChange={(event) => setValue(event.currentTarget.value)}
                  error={error}
                  data-autofocus
                />
                {adding.kind === 'when' ? (
                  <Select
                    label="Then"
                    data={[
                      { value: 'tap', label: 'Tap it' },
                      { value: 'back', label: 'Press Back' },
                    ]}
                    value={then}
                    allowDeselect={false}
                    onChange={(next) => setThen(next === 'back' ? 'back' : 'tap')}
                  />
                ) : (
                  <TextInput
                    label="Timeout"
                    description="How long to wait for it: 10s, 800ms, 1m"
                    value={timeout}
                    onChange={(event) => setTimeoutText(event.currentTarget.value)}
                  />
                )}
              </>
            )}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit">Add Step</Button>
            </Group>
          </Stack>
        </form>
      ) : null}
    </FormModal>
  );
}
