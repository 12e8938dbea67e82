import { Button, SimpleGrid, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconSearch, IconUserPlus } from '@tabler/icons-react';
import type { User } from '@farm/contracts';
import { useState } from 'react';
import { useDevices, useTasks, useUsers } from '../../shared/resources';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { AssignTasksModal } from './components/AssignTasksModal';
import { InviteVaModal } from './components/InviteVaModal';
import { VaCard } from './components/VaCard';
import { VaHistoryModal } from './components/VaHistoryModal';
import { VaProfileModal } from './components/VaProfileModal';
import { assignedDevice, matchesVa } from './vas.model';

export function VasPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const users = useUsers();
  const devices = useDevices();
  const [search, setSearch] = useState('');
  const [inviteOpened, inviteDialog] = useDisclosure(false);
  const [profile, setProfile] = useState<User | null>(null);
  const [assigning, setAssigning] = useState<User | null>(null);
  const [history, setHistory] = useState<User | null>(null);
  const profileTasks = useTasks({ assignedToId: profile?.id }, { enabled: profile !== null });

  const deviceList = devices.data ?? [];
  const vas = (users.data ?? []).filter((user) => user.role === 'va');
  const shown = vas.filter((va) => matchesVa(va, search));

  return (
    <>
      <PageHeader
        title="Virtual Assistants"
        subtitle="Manage your VA team"
        actions={
          isOperator ? (
            <Button leftSection={<IconUserPlus size={16} />} onClick={inviteDialog.open}>
              Invite VA
            </Button>
          ) : null
        }
      />

      <TextInput
        placeholder="Search by name or email..."
        aria-label="Search virtual assistants"
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        mb="lg"
        maw={480}
      />

      {users.isPending ? (
        <LoadingState label="Loading virtual assistants..." />
      ) : shown.length === 0 ? (
        <EmptyText>{vas.length === 0 ? 'No virtual assistants yet' : 'No virtual assistants match your search'}</EmptyText>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3, xl: 4 }} spacing="md">
          {shown.map((va) => (
            <VaCard
              key={va.id}
              va={va}
              device={assignedDevice(va.id, deviceList)}
              canManage={isOperator}
              onViewProfile={() => setProfile(va)}
              onAssignTasks={() => setAssigning(va)}
              onViewHistory={() => setHistory(va)}
            />
          ))}
        </SimpleGrid>
      )}

      {isOperator ? <InviteVaModal opened={inviteOpened} onClose={inviteDialog.close} /> : null}
      <VaProfileModal
        va={profile}
        devices={profile ? deviceList.filter((device) => device.assignedToId === profile.id) : []}
        tasks={profileTasks.data ?? []}
        primaryDevice={profile ? assignedDevice(profile.id, deviceList) : undefined}
        onClose={() => setProfile(null)}
      />
      {isOperator ? <AssignTasksModal va={assigning} onClose={() => setAssigning(null)} /> : null}
      <VaHistoryModal va={history} onClose={() => setHistory(null)} />
    </>
  );
}
