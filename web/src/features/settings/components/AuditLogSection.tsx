/** Settings → Audit log (operators): who did what to which entity, when and from where; filtered and paged. */
import { Badge, Card, Code, Group, Select, Table, Text, TextInput, Title } from '@mantine/core';
import type { AuditEntry } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format';
import { usePagedList } from '../../../shared/paged';
import { useUsers } from '../../../shared/resources';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { LoadMore } from '../../../shared/ui/LoadMore';
import { ScrollX } from '../../../shared/ui/ScrollX';
import { TableHead } from '../../../shared/ui/TableHead';

const ALL = 'all';

function dayStart(value: string): string | undefined {
  return value ? new Date(`${value}T00:00:00`).toISOString() : undefined;
}
function dayEnd(value: string): string | undefined {
  if (!value) return undefined;
  const end = new Date(`${value}T00:00:00`);
  end.setDate(end.getDate() + 1);
  return end.toISOString();
}

export function AuditLogSection() {
  const users = useUsers();
  const facets = useQuery<{ actions: string[]; entityTypes: string[] }>({ queryKey: ['/api/audit-log/facets'] });
  const [actorId, setActorId] = useState(ALL);
  const [action, setAction] = useState(ALL);
  const [entityType, setEntityType] = useState(ALL);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const filters = {
    actorId: actorId === ALL ? undefined : actorId,
    action: action === ALL ? undefined : action,
    entityType: entityType === ALL ? undefined : entityType,
    from: dayStart(from),
    to: dayEnd(to),
  };
  const log = usePagedList<AuditEntry>('/api/audit-log', filters);

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="audit-title">
      <Title order={2} fz="lg" mb="xs" id="audit-title">
        Audit log
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Every change in the workspace: who made it, to what, when and from which address.
      </Text>
      <Group gap="sm" mb="md" wrap="wrap" align="flex-end">
        <Select
          label="Person"
          data={[{ value: ALL, label: 'Everyone' }, ...(users.data ?? []).map((user) => ({ value: user.id, label: user.name }))]}
          value={actorId}
          allowDeselect={false}
          onChange={(value) => setActorId(value ?? ALL)}
          w={{ base: '100%', xs: 180 }}
        />
        <Select
          label="Action"
          searchable
          data={[{ value: ALL, label: 'All actions' }, ...(facets.data?.actions ?? []).map((value) => ({ value, label: value }))]}
          value={action}
          allowDeselect={false}
          onChange={(value) => setAction(value ?? ALL)}
          w={{ base: '100%', xs: 200 }}
        />
        <Select
          label="Entity"
          data={[{ value: ALL, label: 'All entities' }, ...(facets.data?.entityTypes ?? []).map((value) => ({ value, label: value }))]}
          value={entityType}
          allowDeselect={false}
          onChange={(value) => setEntityType(value ?? ALL)}
          w={{ base: '100%', xs: 160 }}
        />
        <TextInput type="date" label="From" value={from} onChange={(event) => setFrom(event.currentTarget.value)} w={{ base: '100%', xs: 160 }} />
        <TextInput type="date" label="To" value={to} onChange={(event) => setTo(event.currentTarget.value)} w={{ base: '100%', xs: 160 }} />
      </Group>
      {log.isPending ? (
        <LoadingState label="Loading audit log..." />
      ) : log.rows.length === 0 ? (
        <EmptyText>No entries match these filters</EmptyText>
      ) : (
        <ScrollX label="Audit log entries, scrollable" minWidth={640}>
          <Table striped aria-label="Audit log entries">
            <TableHead columns={['When', 'Who', 'Action', 'Entity', 'Address']} />
            <Table.Tbody>
              {log.rows.map((entry) => (
                <Table.Tr key={entry.id}>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(entry.createdAt)}</Text>
                  </Table.Td>
                  <Table.Td>{entry.actorName ?? 'System'}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color="gray" style={{ textTransform: 'none' }}>
                      {entry.action}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {entry.entityType}
                      {entry.entityId ? (
                        <>
                          {' '}
                          <Code>{entry.entityId.slice(0, 8)}</Code>
                        </>
                      ) : null}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{entry.ip ?? '—'}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollX>
      )}
      <LoadMore hasMore={log.hasNextPage} loading={log.isFetchingNextPage} onLoad={() => void log.fetchNextPage()} />
    </Card>
  );
}
