/** The bulk bar's "Assign VA" menu: each VA of the workspace, and Nobody. */
import { Button, Menu } from '@mantine/core';
import { IconChevronDown } from '@tabler/icons-react';

export interface AssignVaMenuProps {
  vas: readonly { value: string; label: string }[];
  loading: boolean;
  /** The VA chosen (null for Nobody) and the words the toast ends with. */
  onAssign: (vaId: string | null, done: string) => void;
}

export function AssignVaMenu({ vas, loading, onAssign }: AssignVaMenuProps) {
  return (
    <Menu position="bottom-start" withinPortal>
      <Menu.Target>
        <Button size="compact-sm" variant="light" rightSection={<IconChevronDown size={14} />} loading={loading}>
          Assign VA
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {vas.length === 0 ? <Menu.Item disabled>No VAs yet</Menu.Item> : null}
        {vas.map((option) => (
          <Menu.Item key={option.value} onClick={() => onAssign(option.value, `assigned to ${option.label}`)}>
            {option.label}
          </Menu.Item>
        ))}
        <Menu.Item onClick={() => onAssign(null, 'unassigned')}>Nobody</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
