import { Button, Group, NumberInput, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { retentionSettings, type RetentionSettings } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { errorToast, toast } from '../../../shared/toast';
import { useUpdateRetention } from '../settings.api';

const fields: { key: keyof RetentionSettings; label: string; unit: string }[] = [
  { key: 'screenshotsDays', label: 'Screenshots', unit: 'days' },
  { key: 'screenshotsPerDevice', label: 'Screenshots per phone', unit: 'at most' },
  { key: 'activityDays', label: 'Activity', unit: 'days' },
  { key: 'finishedTasksDays', label: 'Finished tasks', unit: 'days' },
];

/** Settings → Workspace → History: how long the farm's history is kept before the hourly prune removes it. */
export function RetentionForm({ current }: { current: RetentionSettings }) {
  const update = useUpdateRetention();
  const [values, setValues] = useState<Record<keyof RetentionSettings, number | string>>(current);
  const [errors, setErrors] = useState<Partial<Record<keyof RetentionSettings, string>>>({});
  useEffect(() => setValues(current), [current]);

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = retentionSettings.safeParse(Object.fromEntries(fields.map(({ key }) => [key, values[key] === '' ? undefined : Number(values[key])])));
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [issue.path[0], issue.message])));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, {
      onSuccess: () => toast('Workspace Updated', 'History older than this is removed within the hour.'),
      onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to update workspace')),
    });
  };

  const unchanged = fields.every(({ key }) => Number(values[key]) === current[key]);
  return (
    <form onSubmit={save} aria-labelledby="retention-title">
      <Title order={3} fz="md" mb={4} id="retention-title">
        History
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Older screenshots (with their files), activity and finished tasks are removed every hour, so the farm&apos;s disk does not fill. Analytics reach back 90
        days.
      </Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        {fields.map(({ key, label, unit }) => (
          <NumberInput
            key={key}
            label={label}
            description={unit === 'days' ? 'Kept for (days)' : 'Newest kept'}
            value={values[key]}
            error={errors[key]}
            allowDecimal={false}
            allowNegative={false}
            onChange={(value) => setValues((now) => ({ ...now, [key]: value }))}
            style={{ flex: '1 1 150px' }}
          />
        ))}
      </Group>
      <Button type="submit" mt="sm" loading={update.isPending} disabled={unchanged}>
        Save History Settings
      </Button>
    </form>
  );
}
