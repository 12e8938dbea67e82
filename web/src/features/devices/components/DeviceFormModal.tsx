import { Select, Text, TextInput } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createDeviceBody, deviceStatusValues, type Device, type DeviceStatus } from '@farm/contracts';
import { useEffect, useMemo, useState } from 'react';
import { deviceStatusLabels } from '../../../shared/format';
import { useUsers } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm } from '../../../shared/ui/FormModal';
import { useCreateDevice } from '../devices.api';

export const deviceStatusOptions = deviceStatusValues.map((value) => ({ value, label: deviceStatusLabels[value] }));

export function isDeviceStatus(value: string | null): value is DeviceStatus {
  return deviceStatusValues.some((status) => status === value);
}

/** Add Device: a name and optionally a VA; its status and battery come from its phone once it is connected. */
export function AddDeviceModal({ opened, onClose, onAdded }: { opened: boolean; onClose: () => void; onAdded?: (device: Device) => void }) {
  const [name, setName] = useState('');
  const [assignedToId, setAssignedToId] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const users = useUsers();
  const create = useCreateDevice();

  useEffect(() => {
    if (!opened) return;
    setName('');
    setAssignedToId(null);
    setError(undefined);
  }, [opened]);

  const vaOptions = useMemo(
    () => (users.data ?? []).filter((user) => user.role === 'va' && user.isActive).map((user) => ({ value: user.id, label: user.name })),
    [users.data],
  );

  const submit = () => {
    const parsed = createDeviceBody.safeParse({ name, assignedToId });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (device) => {
        toast('Device Added', `${device.name} has been added to the fleet. Connect its phone with the code shown.`);
        onClose();
        onAdded?.(device);
      },
      onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to add device')),
    });
  };

  return (
    <ModalForm opened={opened} onClose={onClose} title="Add Device" onSubmit={submit} busy={create.isPending} submitLabel="Add Device" noValidate={false}>
      <TextInput label="Device Name" required value={name} error={error} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
      <Select label="Assigned VA" placeholder="None" data={vaOptions} value={assignedToId} clearable searchable onChange={setAssignedToId} />
      <Text size="xs" c="dimmed">
        Its status and battery come from the phone itself, once its agent connects.
      </Text>
    </ModalForm>
  );
}
