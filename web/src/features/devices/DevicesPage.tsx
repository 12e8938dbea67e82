import { Button, Group, Select, SimpleGrid, TextInput } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import type { DeviceStatus } from '@farm/api/contracts';
import { useState } from 'react';
import { serverMessageOr } from '../../shared/api';
import { byId, useDevices, useUsers } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { useCreateCredential, useRestartSession } from './devices.api';
import { ConnectPhoneModal } from './components/ConnectPhoneModal';
import { AssignVaModal } from './components/AssignVaModal';
import { DeviceCard } from './components/DeviceCard';
import { DeviceDetailsModal } from './components/DeviceDetailsModal';
import { AddDeviceModal, deviceStatusOptions, isDeviceStatus } from './components/DeviceFormModal';

const ALL = 'all';
const statusFilterOptions = [{ value: ALL, label: 'All Status' }, ...deviceStatusOptions];

export function DevicesPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 250);
  const [status, setStatus] = useState<DeviceStatus | typeof ALL>(ALL);
  const devices = useDevices({ search: debouncedSearch, status: status === ALL ? undefined : status });
  const users = useUsers();
  const userMap = byId(users.data);
  const restart = useRestartSession();
  const [addOpened, addDialog] = useDisclosure(false);
  const [detailsId, setDetailsId] = useState<string | null>(null);
  const [assignId, setAssignId] = useState<string | null>(null);
  const credential = useCreateCredential();
  const [connecting, setConnecting] = useState<string | null>(null);

  const list = devices.data ?? [];
  const deviceMap = byId(list);
  const detailsDevice = detailsId ? (deviceMap.get(detailsId) ?? null) : null;
  const assignDevice = assignId ? (deviceMap.get(assignId) ?? null) : null;
  const vaName = (id: string | null) => (id ? userMap.get(id)?.name : undefined);

  const restartSession = (id: string, name: string) => {
    restart.mutate(id, {
      onSuccess: () => toast('Session Restarted', `A new session has started on ${name}.`),
      onError: (error) => errorToast('Error', serverMessageOr(error, 'Failed to restart session')),
    });
  };

  const connectPhone = (name: string, id: string) => {
    setConnecting(name);
    credential.reset();
    credential.mutate(id);
  };
  const closeConnect = () => {
    setConnecting(null);
    credential.reset();
  };

  return (
    <>
      <PageHeader
        title="Devices"
        subtitle="Manage your device fleet"
        actions={
          isOperator ? (
            <Button leftSection={<IconPlus size={16} />} onClick={addDialog.open}>
              Add Device
            </Button>
          ) : null
        }
      />

      <Group gap="sm" mb="lg" wrap="wrap">
        <TextInput
          placeholder="Search devices..."
          aria-label="Search devices"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
        <Select
          aria-label="Filter by status"
          data={statusFilterOptions}
          value={status}
          allowDeselect={false}
          onChange={(value) => setStatus(isDeviceStatus(value) ? value : ALL)}
          w={{ base: '100%', xs: 180 }}
        />
      </Group>

      {devices.isPending ? (
        <LoadingState label="Loading devices..." />
      ) : list.length === 0 ? (
        <EmptyText>{debouncedSearch || status !== ALL ? 'No devices match your filters' : 'No devices yet'}</EmptyText>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3, xl: 4 }} spacing="md">
          {list.map((device) => (
            <DeviceCard
              key={device.id}
              device={device}
              vaName={vaName(device.assignedToId)}
              canManage={isOperator}
              canRestart={isOperator || (me !== undefined && device.assignedToId === me.id)}
              onViewDetails={() => setDetailsId(device.id)}
              onAssignVa={() => setAssignId(device.id)}
              onRestartSession={() => restartSession(device.id, device.name)}
              onConnectPhone={() => connectPhone(device.name, device.id)}
            />
          ))}
        </SimpleGrid>
      )}

      {isOperator ? <AddDeviceModal opened={addOpened} onClose={addDialog.close} /> : null}
      <DeviceDetailsModal
        device={detailsDevice}
        vaName={vaName(detailsDevice?.assignedToId ?? null)}
        canManage={isOperator}
        onClose={() => setDetailsId(null)}
      />
      <AssignVaModal device={assignDevice} onClose={() => setAssignId(null)} />
      {isOperator ? (
        <ConnectPhoneModal
          deviceName={connecting}
          credential={credential.data}
          pending={credential.isPending}
          failed={credential.isError}
          onClose={closeConnect}
        />
      ) : null}
    </>
  );
}
