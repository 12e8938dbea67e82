/** The "Filter by group" select of a phones list (Devices first): all phones, or one group or tag. */
import type { DeviceGroup } from '@farm/contracts';
import type { ToolbarFilter } from '../../shared/ui/ListToolbar';

export const ALL_GROUPS = 'all';

/** The toolbar filter; a group id in the address that no longer exists reads as "All groups". */
export function groupFilter(groups: readonly DeviceGroup[] | undefined, value: string, onChange: (groupId: string | null) => void): ToolbarFilter {
  const list = groups ?? [];
  const known = list.some((group) => group.id === value);
  return {
    label: 'Filter by group',
    data: [
      { value: ALL_GROUPS, label: 'All groups' },
      ...list.map((group) => ({ value: group.id, label: `${group.kind === 'tag' ? '#' : ''}${group.name} (${group.deviceIds.length})` })),
    ],
    value: known ? value : ALL_GROUPS,
    onChange: (next) => onChange(next && next !== ALL_GROUPS ? next : null),
    width: 200,
    searchable: true,
  };
}
