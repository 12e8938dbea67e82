/**
 * A phone host's fleet health in Settings → Phone hosts: where each phone hangs on its USB bus, the capacity
 * warnings with their reasons, uhubctl's state ("uhubctl: no permission" where the host may not write), and the
 * host's fleet settings (uhubctl, the recovery ladder's limits, capacity thresholds, the scheduled restart).
 */
import { Alert, Badge, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { hostFleetSettings, type HostFleetSettings } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { errorToast, toast } from '../../../shared/toast';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { summarizeHealth, healthColors } from '../health/health';
import { useHostFleet, useSaveFleetSettings } from '../health/health.api';
import { TableHead } from '../../../shared/ui/TableHead';

type Errors = Partial<Record<string, string>>;

function errorsOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Errors {
  const errors: Errors = {};
  for (const issue of issues) errors[issue.path.join('.')] ??= issue.message;
  return errors;
}

export function HostFleetPanel({ hostId, hostName }: { hostId: string; hostName: string }) {
  const fleet = useHostFleet(hostId, true);
  const save = useSaveFleetSettings(hostId);
  const [draft, setDraft] = useState<HostFleetSettings | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  useEffect(() => {
    if (fleet.data && draft === null) setDraft(fleet.data.settings);
  }, [fleet.data, draft]);

  if (fleet.isPending || !draft) return <LoadingState label="Loading fleet health..." />;
  if (!fleet.data) return null;
  const { usb, phones } = fleet.data;

  const set = <K extends keyof HostFleetSettings>(key: K, value: Partial<HostFleetSettings[K]>) => setDraft({ ...draft, [key]: { ...draft[key], ...value } });
  const number = (value: string | number) => (typeof value === 'number' ? value : Number.NaN);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = hostFleetSettings.safeParse(draft);
    if (!parsed.success) {
      setErrors(errorsOf(parsed.error.issues));
      return;
    }
    setErrors({});
    save.mutate(parsed.data, {
      onSuccess: () => toast('Fleet Settings Saved', `${hostName} uses them from now on.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to save the fleet settings')),
    });
  };

  return (
    <Stack gap="sm" mt="sm" aria-label={`Fleet health of ${hostName}`}>
      {usb?.uhubctl.problem ? (
        <Alert color="red" variant="light" title={usb.uhubctl.problem}>
          The host cannot power-cycle USB ports: add the udev rule from the README on the host, then restart the host.
        </Alert>
      ) : null}
      {(usb?.warnings ?? []).map((warning) => (
        <Alert key={`${warning.scope}:${warning.id}`} color="yellow" variant="light" title={`${warning.phones} phones, limit ${warning.limit}`}>
          {warning.message}
        </Alert>
      ))}
      <Title order={4} fz="sm">
        Phones on the USB bus
      </Title>
      {phones.length === 0 ? (
        <Text size="sm" c="dimmed">
          No phones on this host yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table striped withTableBorder fz="sm">
            <TableHead columns={['Phone', 'Controller', 'Hub', 'Port', 'Health']} />
            <Table.Tbody>
              {phones.map((phone) => {
                const summary = summarizeHealth(phone.healthAt || phone.vitalsAt ? phone : null);
                const kind = usb?.controllers.find((controller) => controller.id === phone.usbController)?.kind;
                return (
                  <Table.Tr key={phone.deviceId}>
                    <Table.Td>{phone.name}</Table.Td>
                    <Table.Td>
                      {phone.usbController ? `${phone.usbController}${kind === 'intel_chipset' ? ' (Intel chipset)' : kind === 'xhci' ? ' (xHCI)' : ''}` : '—'}
                    </Table.Td>
                    <Table.Td>{phone.usbHub ?? '—'}</Table.Td>
                    <Table.Td>{phone.usbPort ?? '—'}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" size="sm" color={healthColors[summary.level]}>
                        {summary.label}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <Paper withBorder p="sm" radius="md" component="form" onSubmit={submit} aria-label={`Fleet settings of ${hostName}`}>
        <Title order={4} fz="sm" mb="xs">
          Recovery and capacity
        </Title>
        <Stack gap="sm">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <Switch
              label="Power-cycle USB ports with uhubctl"
              checked={draft.uhubctl.enabled}
              onChange={(event) => set('uhubctl', { enabled: event.currentTarget.checked })}
            />
            <TextInput
              label="Hub location"
              description="As uhubctl -l takes it (1 for the motherboard's ports on bus 1); empty: any hub a phone is on"
              placeholder="1-2"
              value={draft.uhubctl.hubLocation}
              error={errors['uhubctl.hubLocation']}
              onChange={(event) => set('uhubctl', { hubLocation: event.currentTarget.value })}
              style={{ flex: '1 1 200px' }}
            />
          </Group>
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <NumberInput
              label="Each rung, times an hour per phone"
              min={1}
              max={20}
              value={draft.ladder.perRungPerHour}
              error={errors['ladder.perRungPerHour']}
              onChange={(value) => set('ladder', { perRungPerHour: number(value) })}
            />
            <NumberInput
              label="Reboots a day per phone"
              min={0}
              max={10}
              value={draft.ladder.rebootsPerDay}
              error={errors['ladder.rebootsPerDay']}
              onChange={(value) => set('ladder', { rebootsPerDay: number(value) })}
            />
            <NumberInput
              label="Phones failing together to restart adb"
              min={2}
              max={100}
              value={draft.ladder.adbServerRestartPhones}
              error={errors['ladder.adbServerRestartPhones']}
              onChange={(value) => set('ladder', { adbServerRestartPhones: number(value) })}
            />
            <NumberInput
              label="adb restarts an hour"
              min={0}
              max={20}
              value={draft.ladder.adbServerRestartsPerHour}
              error={errors['ladder.adbServerRestartsPerHour']}
              onChange={(value) => set('ladder', { adbServerRestartsPerHour: number(value) })}
            />
            <NumberInput
              label="Phones per Intel chipset controller"
              min={1}
              max={127}
              value={draft.capacity.intelChipset}
              error={errors['capacity.intelChipset']}
              onChange={(value) => set('capacity', { intelChipset: number(value) })}
            />
            <NumberInput
              label="Phones per other xHCI controller"
              min={1}
              max={127}
              value={draft.capacity.xhci}
              error={errors['capacity.xhci']}
              onChange={(value) => set('capacity', { xhci: number(value) })}
            />
            <NumberInput
              label="Phones per host"
              min={1}
              max={500}
              value={draft.capacity.host}
              error={errors['capacity.host']}
              onChange={(value) => set('capacity', { host: number(value) })}
            />
          </SimpleGrid>
          <Group align="flex-end" gap="sm" wrap="wrap">
            <Switch
              label="Restart phones each night"
              checked={draft.scheduledRestart.enabled}
              onChange={(event) => set('scheduledRestart', { enabled: event.currentTarget.checked })}
            />
            <NumberInput
              label="Hour"
              min={0}
              max={23}
              w={90}
              value={draft.scheduledRestart.hour}
              error={errors['scheduledRestart.hour']}
              onChange={(value) => set('scheduledRestart', { hour: number(value) })}
            />
            <NumberInput
              label="Minute"
              min={0}
              max={59}
              w={90}
              value={draft.scheduledRestart.minute}
              error={errors['scheduledRestart.minute']}
              onChange={(value) => set('scheduledRestart', { minute: number(value) })}
            />
            <Switch
              label="Idle phones only"
              checked={draft.scheduledRestart.idleOnly}
              onChange={(event) => set('scheduledRestart', { idleOnly: event.currentTarget.checked })}
            />
          </Group>
          <Group justify="flex-end">
            <Button type="submit" size="xs" loading={save.isPending}>
              Save Fleet Settings
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
