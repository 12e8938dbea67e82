import { Button, Group, NumberInput, Select, Stack, TextInput } from '@mantine/core';
import { createDeviceBody, deviceStatusValues, type DeviceStatus } from '@farm/api/contracts';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { serverMessageOr } from '../../../shared/api';
import { deviceStatusLabels } from '../../../shared/format';
import { useUsers } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { useCreateDevice } from '../devices.api';

export const deviceStatusOptions = deviceStatusValues.map((value) => ({ value, label: deviceStatusLabels[value] }));

export function isDeviceStatus(value: string | null): value is DeviceStatus {
  return deviceStatusValues.some((status) => status === value);
}

/** Add Device: a name, and optionally the starting status, battery and VA (defaults offline and 100 %). */
export function AddDeviceModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [status, setStatus] = useState<DeviceStatus>('offline');
  const [battery, setBattery] = useState<number>(100);
  const [assignedToId, setAssignedToId] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const users = useUsers();
  const create = useCreateDevice();

  useEffect(() => {
    if (!opened) return;
    setName('');
    setStatus('offline');
    setBattery(100);
    setAssignedToId(null);
    setError(undefined);
  }, [opened]);

  const vaOptions = useMemo(
    () => (users.data ?? []).filter((user) => user.role === 'va' && user.isActive).map((user) => ({ value: user.id, label: user.name })),
    [users.data],
  );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createDeviceBody.safeParse({ name, status, battery, assignedToId });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (device) => {
        toast('Device Added', `${device.name} has been added to the fleet.`);
        onClose();
      },
      onError: (failure) =>
        errorToast('Error', serverMessageOr(failure, 'Failed to add device')),
    });
  };

  return (
    <FormModal opened={opened} onClose={onClose} title="Add Device">
      <form onSubmit={submit}>
        <Stack gap="md">
          <TextInput label="Device Name" required value={name} error={error} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <Select
            label="Status"
            data={deviceStatusOptions}
            value={status}
            allowDeselect={false}
            onChange={(value) => isDeviceStatus(value) && setStatus(value)}
          />
          <NumberInput
            label="Battery (%)"
            min={0}
            max={100}
            clampBehavior="strict"
            allowDecimal={false}
            value={battery}
            onChange={(value) => setBattery(typeof value === 'number' ? value : Number(value) || 0)}
          />
          <Select
            label="Assigned VA"
            placeholder="None"
            data={vaOptions}
            value={assignedToId}
            clearable
            searchable
            onChange={setAssignedToId}
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose} disabled={create.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Add Device
            </Button>
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}
