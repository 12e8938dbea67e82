/** Devices → Groups: make, rename and remove groups and tags, and give a group's phones to a VA at once (operators). */
import { ActionIcon, Badge, Button, Group, SegmentedControl, Select, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconCheck, IconPencil, IconTrash, IconUsersGroup, IconX } from '@tabler/icons-react';
import type { DeviceGroup, DeviceGroupKind } from '@farm/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { groupControlPathForGroup } from '../devices/group/group.state';
import { refusalMessage } from '../../shared/refusal';
import { useUsers } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { FormModal } from '../../shared/ui/FormModal';
import { ScrollX } from '../../shared/ui/ScrollX';
import { useAssignGroup, useCreateGroup, useDeleteGroup, useGroups, useUpdateGroup } from './groups.api';
import { TableHead } from '../../shared/ui/TableHead';

const NOBODY = 'nobody';

function NewGroupForm() {
  const create = useCreateGroup();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<DeviceGroupKind>('group');
  const [error, setError] = useState<string | null>(null);
  const submit = () => {
    create.mutate(
      { name, kind },
      {
        onSuccess: (group) => {
          toast(kind === 'tag' ? 'Tag Created' : 'Group Created', `${group.name} is ready. Select phones on Devices to add them.`);
          setName('');
          setError(null);
        },
        onError: (failure) => setError(refusalMessage(failure, 'Failed to create the group')),
      },
    );
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label="New group or tag"
          placeholder="e.g. Client Acme, Hub 2"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={error}
          style={{ flex: '1 1 200px' }}
          maxLength={100}
        />
        <SegmentedControl
          aria-label="Kind"
          value={kind}
          onChange={(value) => setKind(value === 'tag' ? 'tag' : 'group')}
          data={[
            { value: 'group', label: 'Group' },
            { value: 'tag', label: 'Tag' },
          ]}
        />
        <Button type="submit" loading={create.isPending}>
          Create
        </Button>
      </Group>
    </form>
  );
}

function GroupRow({ group, vaOptions, onDelete }: { group: DeviceGroup; vaOptions: { value: string; label: string }[]; onDelete: () => void }) {
  const update = useUpdateGroup();
  const assign = useAssignGroup();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(group.name);
  const [error, setError] = useState<string | null>(null);
  const [va, setVa] = useState<string | null>(null);
  const navigate = useNavigate();

  const rename = () =>
    update.mutate(
      { id: group.id, body: { name } },
      {
        onSuccess: () => {
          setEditing(false);
          setError(null);
        },
        onError: (failure) => setError(refusalMessage(failure, 'Failed to rename the group')),
      },
    );
  const giveTo = () => {
    if (!va) return;
    const assignedToId = va === NOBODY ? null : va;
    const vaName = vaOptions.find((option) => option.value === va)?.label;
    assign.mutate(
      { id: group.id, assignedToId },
      {
        onSuccess: (answer) => {
          const phones = `${answer.results.length} ${answer.results.length === 1 ? 'phone' : 'phones'}`;
          toast('VA Assigned', assignedToId ? `${phones} of ${group.name} now assigned to ${vaName}.` : `${phones} of ${group.name} have no VA now.`);
          setVa(null);
        },
        onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to assign VA')),
      },
    );
  };

  return (
    <Table.Tr>
      <Table.Td>
        {editing ? (
          <Group gap={4} wrap="nowrap">
            <TextInput
              aria-label={`New name for ${group.name}`}
              size="xs"
              value={name}
              error={error}
              maxLength={100}
              onChange={(event) => setName(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') rename();
              }}
            />
            <ActionIcon variant="subtle" aria-label="Save name" onClick={rename} loading={update.isPending}>
              <IconCheck size={16} />
            </ActionIcon>
            <ActionIcon variant="subtle" color="gray" aria-label="Cancel renaming" onClick={() => setEditing(false)}>
              <IconX size={16} />
            </ActionIcon>
          </Group>
        ) : (
          <Group gap={6} wrap="nowrap">
            <Text size="sm" fw={500}>
              {group.name}
            </Text>
            <Badge size="xs" variant="light" color={group.kind === 'tag' ? 'grape' : 'blue'}>
              {group.kind === 'tag' ? 'Tag' : 'Group'}
            </Badge>
          </Group>
        )}
      </Table.Td>
      <Table.Td>{group.deviceIds.length}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Select
            aria-label={`Assign the phones of ${group.name} to`}
            placeholder="Assign all to…"
            size="xs"
            data={[...vaOptions, { value: NOBODY, label: 'Nobody' }]}
            value={va}
            onChange={setVa}
            w={150}
            disabled={group.deviceIds.length === 0}
          />
          <Button size="compact-xs" variant="light" disabled={!va} loading={assign.isPending} onClick={giveTo}>
            Assign
          </Button>
        </Group>
      </Table.Td>
      <Table.Td>
        <Group gap={2} wrap="nowrap" justify="flex-end">
          <Tooltip label={group.deviceIds.length > 30 ? 'Group control: the first 30 phones' : 'Group control'} withArrow>
            <ActionIcon
              variant="subtle"
              aria-label={`Group control: ${group.name}`}
              disabled={group.deviceIds.length === 0}
              onClick={() => void navigate(groupControlPathForGroup(group.id))}
            >
              <IconUsersGroup size={16} />
            </ActionIcon>
          </Tooltip>
          <ActionIcon
            variant="subtle"
            aria-label={`Rename ${group.name}`}
            onClick={() => {
              setName(group.name);
              setEditing(true);
            }}
          >
            <IconPencil size={16} />
          </ActionIcon>
          <ActionIcon variant="subtle" color="red" aria-label={`Delete ${group.name}`} onClick={onDelete}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

export function GroupsModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const groups = useGroups();
  const users = useUsers();
  const remove = useDeleteGroup();
  const [deleting, setDeleting] = useState<DeviceGroup | null>(null);
  const vaOptions = (users.data ?? []).filter((user) => user.role === 'va' && user.isActive).map((user) => ({ value: user.id, label: user.name }));
  const list = groups.data ?? [];

  return (
    <FormModal opened={opened} onClose={onClose} title="Groups and tags" size="xl">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Sort phones by client, hub or account type; a phone may be in several. Select phones on Devices to add them to a group.
        </Text>
        <NewGroupForm />
        {list.length === 0 ? (
          <Text size="sm" c="dimmed">
            No groups yet
          </Text>
        ) : (
          <ScrollX label="Groups and tags" minWidth={560}>
            <Table verticalSpacing="xs">
              <TableHead columns={['Name', 'Phones', 'VA', '']} />
              <Table.Tbody>
                {list.map((group) => (
                  <GroupRow key={group.id} group={group} vaOptions={vaOptions} onDelete={() => setDeleting(group)} />
                ))}
              </Table.Tbody>
            </Table>
          </ScrollX>
        )}
      </Stack>
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? 'the group'}?`}
        message="The group is removed; its phones stay as they are."
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={() => {
          if (!deleting) return;
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast('Group Deleted', `${deleting.name} was removed.`);
              setDeleting(null);
            },
            onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to delete the group')),
          });
        }}
        onClose={() => setDeleting(null)}
      />
    </FormModal>
  );
}
