import { Button, Group, Select, Stack, Text } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import type { Device } from '@farm/contracts';
import { useEffect, useMemo, useState } from 'react';
import { useUsers } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { useUpdateDevice } from '../devices.api';

const NONE = 'none';

/** Give a device to one VA, or to nobody. */
export function AssignVaModal({ device, onClose }: { device: Device | null; onClose: () => void }) {
  const users = useUsers();
  const update = useUpdateDevice();
  const [choice, setChoice] = useState<string>(NONE);

  useEffect(() => {
    if (device) setChoice(device.assignedToId ?? NONE);
  }, [device]);

  const options = useMemo(
    () => [
      { value: NONE, label: 'None' },
      ...(users.data ?? []).filter((user) => user.role === 'va' && user.isActive).map((user) => ({ value: user.id, label: user.name })),
    ],
    [users.data],
  );

  const save = () => {
    if (!device) return;
    const assignedToId = choice === NONE ? null : choice;
    update.mutate(
      { id: device.id, body: { assignedToId } },
      {
        onSuccess: () => {
          const name = options.find((option) => option.value === choice)?.label;
          toast('VA Assigned', assignedToId ? `${device.name} is now assigned to ${name}.` : `${device.name} has no VA now.`);
          onClose();
        },
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to assign VA')),
      },
    );
  };

  return (
    <FormModal opened={device !== null} onClose={onClose} title="Assign VA">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Choose the virtual assistant who works on {device?.name}.
        </Text>
        <Select
          label="Virtual Assistant"
          data={options}
          value={choice}
          allowDeselect={false}
          searchable
          onChange={(value) => setChoice(value ?? NONE)}
          data-autofocus
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} disabled={update.isPending}>
            Cancel
          </Button>
          <Button onClick={save} loading={update.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </FormModal>
  );
}
