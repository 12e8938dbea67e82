import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import type { Task } from '@farm/contracts';
import { useState } from 'react';
import { fromDateTimeLocal, toDateTimeLocal } from '../../../shared/format';
import { refusalMessage } from '../../../shared/refusal';
import { errorToast, toast } from '../../../shared/toast';
import { useAnswerTask } from '../tasks.api';

/** Whether a task asks a person about a post its phone could not confirm, and still waits for the answer. */
export function asksAboutPost(task: Pick<Task, 'unconfirmedTaskId' | 'status'>): boolean {
  return task.unconfirmedTaskId !== null && (task.status === 'pending' || task.status === 'in-progress');
}

/**
 * The two answers to "did the post go up?": "It is up" publishes the post (at the time given, else now) and "It is
 * not" has the phone publish it again.
 */
export function UnconfirmedPostAnswer({ task }: { task: Pick<Task, 'id' | 'title'> }) {
  const answer = useAnswerTask();
  const [when, setWhen] = useState('');
  const [error, setError] = useState<string | undefined>();

  const send = (given: 'up' | 'not') => {
    const publishedAt = given === 'up' && when ? fromDateTimeLocal(when) : null;
    if (given === 'up' && when && !publishedAt) {
      setError('Enter the time it went up, or leave it empty for now');
      return;
    }
    setError(undefined);
    // The answered question leaves this card (it is settled) before its request's own callbacks would run: the
    // promise tells the person either way.
    answer.mutateAsync({ id: task.id, body: given === 'up' ? { answer: 'up', ...(publishedAt ? { publishedAt } : {}) } : { answer: 'not' } }).then(
      () =>
        given === 'up' ? toast('Post Published', 'The post is marked as published.') : toast('Publishing Again', 'The phone will publish the post again.'),
      (failure: unknown) => {
        const message = refusalMessage(failure, 'Failed to answer');
        if (given === 'up' && /time it went up/.test(message)) setError(message);
        else errorToast('Error', message);
      },
    );
  };

  return (
    <Stack gap={6} mt="sm" aria-label="Is the post up?" role="group">
      <Text size="sm" fw={600}>
        Is the post up?
      </Text>
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          type="datetime-local"
          size="xs"
          label="Went up at (optional)"
          max={toDateTimeLocal(new Date().toISOString())}
          value={when}
          onChange={(event) => setWhen(event.currentTarget.value)}
          error={error}
        />
        <Button
          size="xs"
          color="green"
          onClick={() => send('up')}
          loading={answer.isPending && answer.variables.body.answer === 'up'}
          disabled={answer.isPending}
        >
          It is up
        </Button>
        <Button
          size="xs"
          color="orange"
          variant="light"
          onClick={() => send('not')}
          loading={answer.isPending && answer.variables.body.answer === 'not'}
          disabled={answer.isPending}
        >
          It is not
        </Button>
      </Group>
    </Stack>
  );
}
