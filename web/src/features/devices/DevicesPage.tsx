import { Button, Group, SimpleGrid, Tooltip } from '@mantine/core';
import { ListToolbar } from '../../shared/ui/ListToolbar';
import { refusalMessage } from '../../shared/refusal';
import { useDisclosure } from '@mantine/hooks';
import { IconAdjustments, IconCamera, IconPlus, IconRefresh, IconTags, IconUsersGroup } from '@tabler/icons-react';
import type { Device } from '@farm/contracts';
import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useBulkAction } from '../../shared/bulk.api';
import { usePagedList } from '../../shared/paged';
import { byId, useUsers } from '../../shared/resources';
import { useUrlFilters, useUrlSearch } from '../../shared/url-filters';
import { AssignVaMenu } from '../../shared/ui/AssignVaMenu';
import { BulkBar } from '../../shared/ui/BulkBar';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { ExportButton } from '../../shared/ui/ExportButton';
import { LoadMore } from '../../shared/ui/LoadMore';
import { errorToast, toast } from '../../shared/toast';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { useDevice, useRestartSession } from './devices.api';
import { ConnectPhoneModal } from '../fleet/enrollment/ConnectPhoneModal';
import { AssignVaModal } from './components/AssignVaModal';
import { DevicesTabs } from './components/DevicesTabs';
import { DeviceCard } from './components/DeviceCard';
import { DeviceDetailsModal } from './components/DeviceDetailsModal';
import { AddDeviceModal, deviceStatusOptions, isDeviceStatus } from './components/DeviceFormModal';
import { useGroups } from '../groups/groups.api';
import { groupFilter } from '../groups/group-filter';
import { GroupsBulkMenu } from '../groups/GroupsBulkMenu';
import { PhoneSettingsModal } from '../fleet/phone-settings/PhoneSettingsModal';
import { GroupsModal } from '../groups/GroupsModal';
import { groupControlPath, groupSizeRefusal } from './group/group.state';

const ALL = 'all';
const statusFilterOptions = [{ value: ALL, label: 'All Status' }, ...deviceStatusOptions];
const FILTER_KEYS = ['status', 'search', 'assignedToId', 'groupId'] as const;

export function DevicesPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const [filters, setFilters] = useUrlFilters(FILTER_KEYS);
  const [search, setSearch] = useUrlSearch(filters.search, setFilters);
  const status = isDeviceStatus(filters.status) ? filters.status : ALL;
  const listFilters = {
    search: filters.search,
    status: status === ALL ? undefined : status,
    assignedToId: filters.assignedToId || undefined,
    groupId: filters.groupId || undefined,
  };
  const groups = useGroups();
  const [groupsOpened, groupsDialog] = useDisclosure(false);
  const devices = usePagedList<Device>('/api/devices', listFilters);
  const users = useUsers();
  const [settingPhones, setSettingPhones] = useState(false);
  const userMap = byId(users.data);
  const restart = useRestartSession();
  const [addOpened, addDialog] = useDisclosure(false);
  const [detailsId, setDetailsId] = useState<string | null>(null);
  const [assignId, setAssignId] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<Device | null>(null);

  const list = devices.rows;
  const bulk = useBulkAction('devices', list, listFilters);
  const { order, selection } = bulk;
  const vaOptions = (users.data ?? []).filter((user) => user.role === 'va').map((user) => ({ value: user.id, label: user.name }));
  const deviceMap = byId(list);

  // A link may open a phone's details, on its Live tab, with Record offered: `?device=<id>&tab=live&record=1`
  // (Re-record from here, on a failure's evidence). The phone need not be on the list's first page.
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  // Group control takes the chosen phones (all matching counts only once every one is loaded).
  const chosenIds = selection.allMatching ? order : [...selection.ids];
  const groupControlRefusal =
    selection.allMatching && devices.hasNextPage ? 'Group control drives at most 30 phones at once: select 30 or fewer' : groupSizeRefusal(chosenIds.length);
  const linkedId = params.get('device');
  const linkedTab = params.get('tab') === 'live' ? 'live' : 'details';
  const offerRecord = params.get('record') === '1';
  useEffect(() => {
    if (linkedId) setDetailsId(linkedId);
  }, [linkedId]);
  const linked = useDevice(linkedId && !deviceMap.has(linkedId) ? linkedId : null);
  const closeDetails = () => {
    setDetailsId(null);
    if (linkedId) {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const key of ['device', 'tab', 'record']) next.delete(key);
          return next;
        },
        { replace: true },
      );
    }
  };
  const detailsDevice = detailsId ? (deviceMap.get(detailsId) ?? (detailsId === linkedId ? (linked.data ?? null) : null)) : null;
  const assignDevice = assignId ? (deviceMap.get(assignId) ?? null) : null;
  const vaName = (id: string | null) => (id ? userMap.get(id)?.name : undefined);

  const restartSession = (id: string, name: string) => {
    restart.mutate(id, {
      onSuccess: () => toast('Session Restarted', `A new session has started on ${name}.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to restart session')),
    });
  };

  return (
    <>
      <DevicesTabs />
      <PageHeader
        title="Devices"
        subtitle="Manage your device fleet"
        actions={
          <Group gap="xs">
            <ExportButton entity="devices" filters={listFilters} />
            {isOperator ? (
              <Button variant="default" leftSection={<IconTags size={16} />} onClick={groupsDialog.open}>
                Manage groups
              </Button>
            ) : null}
            {isOperator ? (
              <Button leftSection={<IconPlus size={16} />} onClick={addDialog.open}>
                Add Device
              </Button>
            ) : null}
          </Group>
        }
      />

      <ListToolbar
        search={{ label: 'Search devices', placeholder: 'Search devices...', value: search, onChange: setSearch }}
        filters={[
          {
            label: 'Filter by status',
            data: statusFilterOptions,
            value: status,
            onChange: (value) => setFilters({ status: isDeviceStatus(value) ? value : null }),
            width: 180,
          },
          {
            label: 'Filter by VA',
            data: [{ value: ALL, label: 'All VAs' }, ...vaOptions],
            value: filters.assignedToId || ALL,
            onChange: (value) => setFilters({ assignedToId: value === ALL ? null : value }),
            width: 180,
          },
          groupFilter(groups.data, filters.groupId, (groupId) => setFilters({ groupId })),
        ]}
      />

      {isOperator && list.length > 0 ? (
        <BulkBar
          onDelete={bulk.askDelete}
          selection={selection}
          pageIds={order}
          noun="devices"
          {...(devices.hasNextPage ? { more: true } : { total: list.length })}
        >
          <AssignVaMenu
            vas={vaOptions}
            loading={bulk.pending}
            onAssign={(vaId, done) => bulk.run({ action: 'update', changes: { assignedToId: vaId } }, done)}
          />
          <Button
            size="compact-sm"
            variant="light"
            leftSection={<IconCamera size={14} />}
            onClick={() => bulk.run({ action: 'command', command: 'screenshot' }, 'asked for a screenshot')}
          >
            Screenshot
          </Button>
          <Button
            size="compact-sm"
            variant="light"
            leftSection={<IconRefresh size={14} />}
            onClick={() => bulk.run({ action: 'command', command: 'restart_session' }, 'restarted')}
          >
            Restart session
          </Button>
          <GroupsBulkMenu
            deviceIds={selection.allMatching ? order : [...selection.ids]}
            disabledReason={selection.allMatching && devices.hasNextPage ? 'Load every matching device first, or choose devices one by one' : undefined}
            onDone={selection.clear}
          />
          <Button size="compact-sm" variant="light" leftSection={<IconAdjustments size={14} />} onClick={() => setSettingPhones(true)}>
            Settings
          </Button>
          <Tooltip label={groupControlRefusal ?? 'Drive the selected phones together'} withArrow events={{ hover: true, focus: true, touch: true }}>
            <Button
              size="compact-sm"
              variant="light"
              leftSection={<IconUsersGroup size={14} />}
              data-disabled={groupControlRefusal ? true : undefined}
              aria-disabled={groupControlRefusal ? true : undefined}
              onClick={(event) => {
                if (groupControlRefusal) {
                  event.preventDefault();
                  return;
                }
                void navigate(groupControlPath(chosenIds));
              }}
            >
              Group control
            </Button>
          </Tooltip>
        </BulkBar>
      ) : null}

      {devices.isPending ? (
        <LoadingState label="Loading devices..." />
      ) : list.length === 0 ? (
        <EmptyText>
          {filters.search || status !== ALL || filters.assignedToId || filters.groupId
            ? 'No devices match your filters'
            : isOperator
              ? 'No devices yet. Connect your first phone: add a device, then choose Connect Phone in its menu.'
              : 'No devices yet'}
        </EmptyText>
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
              onConnectPhone={() => setConnecting(device)}
              {...(isOperator ? { selected: selection.has(device.id), onSelect: (range: boolean) => selection.toggle(device.id, range) } : {})}
            />
          ))}
        </SimpleGrid>
      )}
      <LoadMore hasMore={devices.hasNextPage} loading={devices.isFetchingNextPage} onLoad={() => void devices.fetchNextPage()} />
      {settingPhones ? (
        <PhoneSettingsModal opened onClose={() => setSettingPhones(false)} deviceIds={selection.allMatching ? order : [...selection.ids]} />
      ) : null}
      <ConfirmModal
        title="Delete the selected devices?"
        message={`${selection.allMatching ? (devices.hasNextPage ? 'All matching' : list.length) : selection.ids.size} devices will be removed for good.`}
        confirmLabel="Delete"
        {...bulk.confirmDelete}
      />

      {isOperator ? <AddDeviceModal opened={addOpened} onClose={addDialog.close} onAdded={setConnecting} /> : null}
      <DeviceDetailsModal
        device={detailsDevice}
        vaName={vaName(detailsDevice?.assignedToId ?? null)}
        canManage={isOperator}
        initialTab={detailsId === linkedId ? linkedTab : 'details'}
        offerRecord={detailsId === linkedId && offerRecord}
        onClose={closeDetails}
      />
      <AssignVaModal device={assignDevice} onClose={() => setAssignId(null)} />
      {isOperator ? <GroupsModal opened={groupsOpened} onClose={groupsDialog.close} /> : null}
      {isOperator ? <ConnectPhoneModal device={connecting} onClose={() => setConnecting(null)} /> : null}
    </>
  );
}
