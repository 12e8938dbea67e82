import { Card, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { playBeep, readSoundEnabled, writeSoundEnabled } from '../../../shared/sound';

/** How pushed work is announced in this browser: the notification always, a short sound if turned on. */
export function NotificationsSection() {
  const [sound, setSound] = useState(readSoundEnabled);

  const toggle = (enabled: boolean) => {
    writeSoundEnabled(enabled);
    setSound(enabled);
    // A sample now, which also lets the browser play later beeps (audio needs a click first).
    if (enabled) playBeep();
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="notifications-title">
      <Title order={2} fz="lg" mb="md" id="notifications-title">
        Notifications
      </Title>
      <Switch
        label="Play a sound when a task is assigned to me"
        description="Kept in this browser only. A notification appears either way."
        checked={sound}
        onChange={(event) => toggle(event.currentTarget.checked)}
      />
      <Text size="xs" c="dimmed" mt="sm">
        New tasks appear at once in My Tasks.
      </Text>
    </Card>
  );
}
