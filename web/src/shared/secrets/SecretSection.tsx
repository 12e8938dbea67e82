/**
 * The shell of a Settings section that makes secrets shown once and lists what it made with a Revoke on each:
 * heading, the create form, the secret just made, the list (loading, empty, rows) and the revoke's confirmation.
 * Invitations, wall links and phone hosts are this one section with their own fields, rows and words.
 */
import { Badge, Button, Card, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { ConfirmModal } from '../ui/ConfirmModal';
import { CopyField } from '../ui/CopyField';
import { EmptyText, LoadingState } from '../ui/LoadingState';
import type { RevokeConfirm } from './secrets.hooks';

export interface SecretSectionProps<TItem extends { id: string }> {
  /** The heading's id is `${id}-title`: the section is labelled by it and old links point at it. */
  id: string;
  title: string;
  description?: string;
  /** The create form's fields; its submit button follows them. */
  fields: ReactNode;
  submitLabel: string;
  submitting: boolean;
  onSubmit: () => void;
  /** The secret just made, shown this once (null before). */
  shown: ReactNode;
  listTitle: string;
  items: { isPending: boolean; data?: readonly TItem[] | undefined };
  loadingLabel: string;
  emptyText: string;
  renderItem: (item: TItem) => ReactNode;
  /** The revoke's question. */
  revokeTitle: string;
  revokeMessage: string;
  revokeConfirm: RevokeConfirm;
}

export function SecretSection<TItem extends { id: string }>(props: SecretSectionProps<TItem>) {
  const { id, title, description, items } = props;
  const list = items.data ?? [];
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    props.onSubmit();
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={`${id}-title`}>
      <Title order={2} fz="lg" mb={description ? 4 : 'md'} id={`${id}-title`}>
        {title}
      </Title>
      {description ? (
        <Text size="sm" c="dimmed" mb="md">
          {description}
        </Text>
      ) : null}
      <form onSubmit={submit}>
        <Group align="flex-start" gap="sm" wrap="wrap">
          {props.fields}
          <Button type="submit" loading={props.submitting} mt={{ base: 0, xs: 25 }}>
            {props.submitLabel}
          </Button>
        </Group>
      </form>
      {props.shown}

      <Title order={3} fz="md" mt="lg" mb="sm">
        {props.listTitle}
      </Title>
      {items.isPending ? (
        <LoadingState label={props.loadingLabel} />
      ) : list.length === 0 ? (
        <EmptyText>{props.emptyText}</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map(props.renderItem)}
        </Stack>
      )}
      <ConfirmModal title={props.revokeTitle} message={props.revokeMessage} confirmLabel="Revoke" {...props.revokeConfirm} />
    </Card>
  );
}

/** A link made just now, with the warning that it is not shown again. */
export function ShownOnceLink({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4} mt="md">
      <CopyField label={label} value={value} />
      <Text size="xs" c="dimmed">
        This link is shown only now; create a new one if it gets lost.
      </Text>
    </Stack>
  );
}

export interface SecretRowProps {
  /** The row's accessible name, when it has one. */
  label?: string;
  name: string;
  /** The dimmed line under the name. */
  meta: ReactNode;
  badge: { label: string; color: string };
  /** Buttons before Revoke. */
  actions?: ReactNode;
  /** Offers Revoke (not for what is revoked, used or expired). */
  onRevoke?: () => void;
  /** Shown under the row (a host's fleet panel). */
  children?: ReactNode;
}

/** One secret's row: its name and dates, its state, and Revoke while it still works. */
export function SecretRow({ label, name, meta, badge, actions, onRevoke, children }: SecretRowProps) {
  return (
    <Paper withBorder p="sm" radius="md" component="li" aria-label={label}>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <div style={{ minWidth: 0 }}>
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {name}
          </Text>
          <Text size="xs" c="dimmed">
            {meta}
          </Text>
        </div>
        <Group gap="sm">
          <Badge variant="light" color={badge.color}>
            {badge.label}
          </Badge>
          {actions}
          {onRevoke ? (
            <Button size="xs" variant="light" color="red" onClick={onRevoke}>
              Revoke
            </Button>
          ) : null}
        </Group>
      </Group>
      {children}
    </Paper>
  );
}
