/** The toolbar over a list page: a search box, then one select per filter, then any actions, wrapping on a phone. */
import { Group, Select, TextInput, type ComboboxData, type MantineSpacing } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { platformValues, type Platform } from '@farm/contracts';
import type { ReactNode } from 'react';

export interface ToolbarFilter {
  /** The select's accessible name ("Filter by status"). */
  label: string;
  data: ComboboxData;
  value: string;
  onChange: (value: string | null) => void;
  /** Width from the `xs` breakpoint up; full width below. */
  width: number;
  placeholder?: string;
  searchable?: boolean;
}

export interface ListToolbarProps {
  search: { label: string; placeholder: string; value: string; onChange: (value: string) => void };
  filters: readonly ToolbarFilter[];
  mb?: MantineSpacing;
  /** Actions after the filters. */
  children?: ReactNode;
}

export function ListToolbar({ search, filters, mb = 'lg', children }: ListToolbarProps) {
  return (
    <Group gap="sm" mb={mb} wrap="wrap">
      <TextInput
        placeholder={search.placeholder}
        aria-label={search.label}
        leftSection={<IconSearch size={16} />}
        value={search.value}
        onChange={(event) => search.onChange(event.currentTarget.value)}
        style={{ flex: '1 1 220px' }}
      />
      {filters.map((filter) => (
        <Select
          key={filter.label}
          aria-label={filter.label}
          placeholder={filter.placeholder}
          data={filter.data}
          value={filter.value}
          allowDeselect={false}
          searchable={filter.searchable}
          onChange={filter.onChange}
          w={{ base: '100%', xs: filter.width }}
        />
      ))}
      {children}
    </Group>
  );
}

/** The "Filter by platform" select of the accounts and posts lists: all platforms, or one. */
export function platformFilter(value: Platform | undefined, onChange: (platform: string | null) => void): ToolbarFilter {
  return {
    label: 'Filter by platform',
    data: [
      { value: 'all', label: 'All Platforms' },
      ...platformValues.map((platform) => ({ value: platform, label: platform[0]!.toUpperCase() + platform.slice(1) })),
    ],
    value: value ?? 'all',
    onChange: (next) => onChange(next === 'all' ? null : next),
    width: 170,
  };
}
