import { Alert, Button, Card, Group, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';

/** SPEC §9: account and post dialog lists are at most 300 px high. */
export const DIALOG_LIST_MAX_HEIGHT = 300;

const plainList = { p: 0, m: 0, style: { listStyle: 'none' } } as const;

interface CampaignPanelProps {
  title: string;
  /** Buttons at the right of the title. */
  actions?: ReactNode;
  children: ReactNode;
  /** The panel's dialogs. */
  dialogs?: ReactNode;
}

/** One panel of a campaign's page: a titled card, its actions beside the title. */
export function CampaignPanel({ title, actions, children, dialogs }: CampaignPanelProps) {
  const heading = (
    <Title order={2} fz="lg">
      {title}
    </Title>
  );
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        {actions === undefined ? (
          heading
        ) : (
          <Group justify="space-between" gap="sm">
            {heading}
            {actions}
          </Group>
        )}
        {children}
      </Stack>
      {dialogs}
    </Card>
  );
}

/** The "Add …" button beside a panel's title. */
export function PanelAddButton({ label, onClick, variant }: { label: string; onClick: () => void; variant?: 'default' }) {
  return (
    <Button size="xs" variant={variant} leftSection={<IconPlus size={14} />} onClick={onClick}>
      {label}
    </Button>
  );
}

/** What a panel's list needs of its query (TanStack's result, or the same read off a parent's). */
interface ListQuery<T> {
  data: readonly T[] | undefined;
  isPending: boolean;
  isError: boolean;
  error?: Error | null;
}

interface PanelListProps<T> {
  query: ListQuery<T>;
  /** The loading label, the failure's title, the empty line and the list's accessible name. */
  texts: { loading: string; failed: string; empty: string; list: string };
  /** Show the failure's words under its title. */
  showError?: boolean;
  /** A numbered list, in this order. */
  order?: (items: readonly T[]) => readonly T[];
  children: (item: T) => ReactNode;
}

/** A panel's list, or what stands in its place: loading, the failure, or that there is nothing yet. */
export function PanelList<T>({ query, texts, showError = false, order, children }: PanelListProps<T>) {
  if (query.isPending) return <LoadingState label={texts.loading} />;
  if (query.isError || !query.data) {
    return (
      <Alert color="red" title={texts.failed}>
        {showError ? query.error?.message : undefined}
      </Alert>
    );
  }
  if (query.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {texts.empty}
      </Text>
    );
  }
  const items = order ? order(query.data) : query.data;
  return (
    <Stack gap="xs" component={order ? 'ol' : 'ul'} {...plainList} aria-label={texts.list}>
      {items.map(children)}
    </Stack>
  );
}

interface PickerModalProps<T> {
  opened: boolean;
  onClose: () => void;
  title: string;
  search: { label: string; placeholder: string; value: string; onChange: (value: string) => void };
  /** Loading or a failure, shown instead of the choices. */
  status?: ReactNode;
  items: readonly T[];
  empty: string;
  itemKey: (item: T) => string;
  /** What the row says of the item. */
  describe: (item: T) => ReactNode;
  pick: { label: string; ariaLabel: (item: T) => string; pending: boolean; pendingKey: string | undefined; onPick: (item: T) => void };
}

/** A dialog to search a list and pick one item with the button on its row. */
export function PickerModal<T>({ opened, onClose, title, search, status, items, empty, itemKey, describe, pick }: PickerModalProps<T>) {
  return (
    <FormModal opened={opened} onClose={onClose} title={title}>
      <Stack gap="sm">
        <TextInput
          label={search.label}
          placeholder={search.placeholder}
          leftSection={<IconSearch size={16} />}
          value={search.value}
          onChange={(event) => search.onChange(event.currentTarget.value)}
          data-autofocus
        />
        <ScrollArea.Autosize mah={DIALOG_LIST_MAX_HEIGHT} type="auto">
          {status ??
            (items.length === 0 ? (
              <Text size="sm" c="dimmed" py="sm">
                {empty}
              </Text>
            ) : (
              <Stack gap={6} component="ul" {...plainList}>
                {items.map((item) => (
                  <Group key={itemKey(item)} component="li" justify="space-between" wrap="nowrap" gap="sm" py={4}>
                    <Stack gap={0} miw={0}>
                      {describe(item)}
                    </Stack>
                    <Button
                      size="xs"
                      variant="light"
                      aria-label={pick.ariaLabel(item)}
                      loading={pick.pending && pick.pendingKey === itemKey(item)}
                      disabled={pick.pending}
                      onClick={() => pick.onPick(item)}
                    >
                      {pick.label}
                    </Button>
                  </Group>
                ))}
              </Stack>
            ))}
        </ScrollArea.Autosize>
      </Stack>
    </FormModal>
  );
}
