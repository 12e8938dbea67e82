/** The bulk bar's "Groups" menu on Devices: put the chosen phones in a group or tag, or take them out of one. */
import { Button, Menu } from '@mantine/core';
import { IconChevronDown, IconTags } from '@tabler/icons-react';
import { refusalMessage } from '../../shared/refusal';
import { errorToast, toast } from '../../shared/toast';
import { useGroupMembers, useGroups } from './groups.api';

export function GroupsBulkMenu({
  deviceIds,
  disabledReason,
  onDone,
}: {
  deviceIds: readonly string[];
  disabledReason?: string | undefined;
  onDone: () => void;
}) {
  const groups = useGroups();
  const members = useGroupMembers();
  const list = groups.data ?? [];
  const phones = `${deviceIds.length} ${deviceIds.length === 1 ? 'phone' : 'phones'}`;

  const change = (id: string, name: string, add: boolean) => {
    members.mutate(
      { id, body: add ? { add: [...deviceIds] } : { remove: [...deviceIds] } },
      {
        onSuccess: () => {
          toast('Group Updated', add ? `${phones} added to ${name}.` : `${phones} taken out of ${name}.`);
          onDone();
        },
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update the group')),
      },
    );
  };

  return (
    <Menu position="bottom-start" withinPortal>
      <Menu.Target>
        <Button
          size="compact-sm"
          variant="light"
          leftSection={<IconTags size={14} />}
          rightSection={<IconChevronDown size={14} />}
          loading={members.isPending}
          disabled={Boolean(disabledReason) || deviceIds.length === 0}
          title={disabledReason}
        >
          Groups
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {list.length === 0 ? <Menu.Item disabled>No groups yet: create one in Groups</Menu.Item> : null}
        {list.length > 0 ? <Menu.Label>Add to</Menu.Label> : null}
        {list.map((group) => (
          <Menu.Item key={`add-${group.id}`} onClick={() => change(group.id, group.name, true)}>
            {group.name}
          </Menu.Item>
        ))}
        {list.length > 0 ? <Menu.Label>Take out of</Menu.Label> : null}
        {list
          .filter((group) => deviceIds.some((id) => group.deviceIds.includes(id)))
          .map((group) => (
            <Menu.Item key={`remove-${group.id}`} onClick={() => change(group.id, group.name, false)}>
              {group.name}
            </Menu.Item>
          ))}
      </Menu.Dropdown>
    </Menu>
  );
}
