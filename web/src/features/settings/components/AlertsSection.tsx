/** Settings → Alerts (operators): webhooks for the events the workspace wants, a test delivery, and the log. */
import { ActionIcon, Badge, Button, Card, Checkbox, Group, NumberInput, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { IconSend, IconTrash } from '@tabler/icons-react';
import { alertEventLabels, alertEventValues, createWebhookBody, type AlertEvent, type Webhook, type WebhookDelivery } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiRequest } from '../../../shared/api';
import { formatDateTime } from '../../../shared/format';
import { useInvalidate } from '../../../shared/invalidate';
import { errorToast, toast } from '../../../shared/toast';
import { CopyField } from '../../../shared/ui/CopyField';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { ScrollX } from '../../../shared/ui/ScrollX';
import { TableHead } from '../../../shared/ui/TableHead';

const deliveryColors: Record<WebhookDelivery['status'], string> = { pending: 'yellow', delivered: 'green', failed: 'red' };

export function AlertsSection() {
  const invalidate = useInvalidate();
  const hooks = useQuery<Webhook[]>({ queryKey: ['/api/webhooks'] });
  const deliveries = useQuery<WebhookDelivery[]>({ queryKey: ['/api/webhook-deliveries'] });
  const refresh = () => invalidate('/api/webhooks', '/api/webhook-deliveries');
  const create = useMutation({ mutationFn: (body: unknown) => apiRequest<Webhook>('/api/webhooks', { method: 'POST', body }), onSuccess: refresh });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: unknown }) => apiRequest<Webhook>(`/api/webhooks/${id}`, { method: 'PATCH', body }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => apiRequest<void>(`/api/webhooks/${id}`, { method: 'DELETE' }), onSuccess: refresh });
  const test = useMutation({
    mutationFn: (id: string) => apiRequest<WebhookDelivery>(`/api/webhooks/${id}/test`, { method: 'POST', body: {} }),
    onSuccess: refresh,
  });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<AlertEvent[]>(['device.offline', 'post.failed']);
  const [minutes, setMinutes] = useState<number>(15);
  const [error, setError] = useState<string | undefined>();

  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createWebhookBody.safeParse({ url, events, offlineMinutes: minutes });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    create.mutate(parsed.data, {
      onSuccess: (saved) => {
        // A name that does not resolve yet is saved; the person is told alerts wait until it does.
        toast('Webhook Added', saved.warning ?? 'Alerts will be sent to this address.');
        setUrl('');
      },
      onError: (failure) => {
        // A private or local address is refused with a sentence naming why: shown under the field too.
        const message = refusalMessage(failure, 'Failed to add webhook');
        setError(message);
        errorToast('Error', message);
      },
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="alerts-title">
      <Title order={2} fz="lg" mb="xs" id="alerts-title">
        Alerts
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Webhooks receive a signed JSON POST with a Slack-compatible text, so a Slack incoming-webhook URL works as it is. Failed deliveries are retried with
        backoff.
      </Text>
      <form onSubmit={add}>
        <Stack gap="sm">
          <TextInput
            label="Webhook URL"
            placeholder="https://hooks.slack.com/services/…"
            value={url}
            error={error}
            onChange={(event) => setUrl(event.currentTarget.value)}
          />
          <Checkbox.Group
            label="Events"
            value={events}
            onChange={(value) => setEvents(value.filter((item): item is AlertEvent => alertEventValues.some((event) => event === item)))}
          >
            <Group gap="md" mt={4} wrap="wrap">
              {alertEventValues.map((value) => (
                <Checkbox key={value} value={value} label={alertEventLabels[value]} />
              ))}
            </Group>
          </Checkbox.Group>
          {events.includes('device.offline') ? (
            <NumberInput
              label="Phone offline longer than (minutes)"
              min={1}
              max={10080}
              value={minutes}
              onChange={(value) => setMinutes(typeof value === 'number' ? value : Number(value) || 1)}
              w={260}
            />
          ) : null}
          <Group>
            <Button type="submit" loading={create.isPending}>
              Add Webhook
            </Button>
          </Group>
        </Stack>
      </form>

      <Title order={3} fz="md" mt="lg" mb="sm">
        Webhooks
      </Title>
      {hooks.isPending ? (
        <LoadingState label="Loading webhooks..." />
      ) : (hooks.data ?? []).length === 0 ? (
        <EmptyText>No webhooks yet</EmptyText>
      ) : (
        <Stack gap="sm">
          {(hooks.data ?? []).map((hook) => (
            <Card key={hook.id} withBorder radius="md" padding="sm" component="article" aria-label={`Webhook ${hook.url}`}>
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {hook.url}
                </Text>
                <Group gap="xs">
                  <Switch
                    label="Active"
                    checked={hook.isActive}
                    onChange={(event) => update.mutate({ id: hook.id, body: { isActive: event.currentTarget.checked } })}
                  />
                  <Button
                    size="compact-sm"
                    variant="light"
                    leftSection={<IconSend size={14} />}
                    loading={test.isPending && test.variables === hook.id}
                    onClick={() => test.mutate(hook.id, { onSuccess: () => toast('Test Sent', 'A test alert is on its way.') })}
                  >
                    Send test
                  </Button>
                  <ActionIcon variant="subtle" color="red" aria-label={`Delete webhook ${hook.url}`} onClick={() => remove.mutate(hook.id)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
              </Group>
              <Group gap={4} mt={4} wrap="wrap">
                {hook.events.map((event) => (
                  <Badge key={event} variant="light" style={{ textTransform: 'none' }}>
                    {alertEventLabels[event]}
                    {event === 'device.offline' ? ` > ${hook.offlineMinutes} min` : ''}
                  </Badge>
                ))}
              </Group>
              <CopyField label="Signing secret (HMAC-SHA256 of timestamp.body, header x-farm-signature)" value={hook.secret} copyLabel="Copy secret" />
            </Card>
          ))}
        </Stack>
      )}

      <Title order={3} fz="md" mt="lg" mb="sm">
        Delivery log
      </Title>
      {deliveries.isPending ? (
        <LoadingState label="Loading deliveries..." />
      ) : (deliveries.data ?? []).length === 0 ? (
        <EmptyText>No alerts sent yet</EmptyText>
      ) : (
        <ScrollX label="Delivery log, scrollable" minWidth={560}>
          <Table striped aria-label="Delivery log">
            <TableHead columns={['When', 'Alert', 'Status', 'Attempts', 'Last answer']} />
            <Table.Tbody>
              {(deliveries.data ?? []).slice(0, 50).map((delivery) => (
                <Table.Tr key={delivery.id}>
                  <Table.Td>{formatDateTime(delivery.createdAt)}</Table.Td>
                  <Table.Td>{delivery.text ?? delivery.event}</Table.Td>
                  <Table.Td>
                    <Badge color={deliveryColors[delivery.status]} variant="light">
                      {delivery.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{delivery.attempts}</Table.Td>
                  <Table.Td>{delivery.lastError ?? (delivery.lastStatus ? String(delivery.lastStatus) : '—')}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollX>
      )}
    </Card>
  );
}
