import { Button, Checkbox, Group, Paper, Text } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { Selection } from '../selection';

export interface BulkBarProps {
  selection: Selection;
  /** The ids of the rows loaded on screen, in order. */
  pageIds: readonly string[];
  /** How many rows match the filter, when known. */
  total?: number;
  /** More rows match than are loaded (their number unknown): choosing all of them is still offered. */
  more?: boolean;
  noun: string;
  /** Offers Delete after the other actions (it asks before it deletes). */
  onDelete?: () => void;
  children: ReactNode;
}

/** The checkbox that chooses the whole loaded list, and, once something is chosen, the bulk actions. */
export function BulkBar({ selection, pageIds, total, more = false, noun, onDelete, children }: BulkBarProps) {
  const chosen = selection.allMatching ? (total ?? pageIds.length) : selection.ids.size;
  const chosenText = selection.allMatching && total === undefined ? `All matching ${noun} selected` : `${chosen} selected`;
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selection.has(id));
  const some = chosen > 0;
  return (
    <Paper withBorder radius="md" p="xs" mb="sm" role="region" aria-label="Bulk actions">
      <Group gap="sm" wrap="wrap">
        <Checkbox
          aria-label={`Select all loaded ${noun}`}
          checked={allOnPage}
          indeterminate={some && !allOnPage}
          onChange={(event) => selection.setPage(pageIds, event.currentTarget.checked)}
        />
        <Text size="sm" fw={500} aria-live="polite">
          {some ? chosenText : `Select ${noun} for bulk actions`}
        </Text>
        {some && !selection.allMatching && total !== undefined && total > selection.ids.size ? (
          <Button size="compact-sm" variant="subtle" onClick={selection.selectAllMatching}>
            Select all {total} matching
          </Button>
        ) : null}
        {some && !selection.allMatching && total === undefined && more ? (
          <Button size="compact-sm" variant="subtle" onClick={selection.selectAllMatching}>
            Select all matching {noun}
          </Button>
        ) : null}
        {some ? (
          <>
            {children}
            {onDelete ? (
              <Button size="compact-sm" variant="light" color="red" leftSection={<IconTrash size={14} />} onClick={onDelete}>
                Delete
              </Button>
            ) : null}
            <Button size="compact-sm" variant="default" onClick={selection.clear}>
              Clear
            </Button>
          </>
        ) : null}
      </Group>
    </Paper>
  );
}
