/**
 * Install, update or remove an app on chosen phones or a group, staged: the first stage's phones first, the rest once
 * all of them succeeded. After starting, the dialog follows the rollout live, a result per phone in words.
 */
import { Alert, Badge, Button, Group, MultiSelect, NumberInput, SegmentedControl, Select, Stack, Switch, Table, Text } from '@mantine/core';
import type { AppLibrary, AppRollout, AppRolloutAction, AppRolloutPhoneStatus } from '@farm/contracts';
import { DEFAULT_FIRST_STAGE } from '@farm/contracts';
import { useState } from 'react';
import { refusalMessage } from '../../shared/refusal';
import { useDevices } from '../../shared/resources';
import { toast } from '../../shared/toast';
import { FormModal } from '../../shared/ui/FormModal';
import { useGroups } from '../groups/groups.api';
import { useRollouts, useStartRollout } from './apps.api';
import { versionLabel } from './apps.format';
import { TableHead } from '../../shared/ui/TableHead';

const phoneColors: Record<AppRolloutPhoneStatus, string> = { waiting: 'gray', sent: 'blue', succeeded: 'teal', failed: 'red', skipped: 'orange' };
const phoneWords: Record<AppRolloutPhoneStatus, string> = {
  waiting: 'Waiting',
  sent: 'Installing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  skipped: 'Skipped',
};
/** A sent phone's badge by where its job stands (`host.app-progress`); its row's line says how long it has been at it. */
const stageWords: Record<string, string> = { waiting_for_task: 'Waiting for its task', downloading: 'Downloading', installing: 'Installing' };
const badgeWords = (phone: AppRollout['phones'][number]) =>
  phone.status === 'sent' && phone.code ? (stageWords[phone.code] ?? phoneWords.sent) : phoneWords[phone.status];
const statusWords: Record<AppRollout['status'], string> = {
  first_stage: 'First stage',
  rest: 'Rest of the phones',
  done: 'Done',
  stopped: 'Stopped',
};

/** A rollout's phones and their results, as they come. */
export function RolloutResults({ rollout }: { rollout: AppRollout }) {
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Text fw={600}>
          {rollout.action === 'remove' ? 'Removing' : rollout.action === 'update' ? 'Updating to' : 'Installing'} {rollout.package}
          {rollout.versionName ? ` ${rollout.versionName}` : ''}
        </Text>
        <Badge color={rollout.status === 'done' ? 'teal' : rollout.status === 'stopped' ? 'red' : 'blue'} variant="light">
          {statusWords[rollout.status]}
        </Badge>
      </Group>
      <Table striped aria-label={`Phones of the rollout of ${rollout.package}`}>
        <TableHead columns={['Phone', 'Stage', 'Result']} />
        <Table.Tbody>
          {rollout.phones.map((phone) => (
            <Table.Tr key={phone.deviceId} aria-label={`${phone.deviceName}: ${badgeWords(phone)}`}>
              <Table.Td>{phone.deviceName}</Table.Td>
              <Table.Td>{phone.stage === 1 ? 'First' : 'Rest'}</Table.Td>
              <Table.Td>
                <Badge color={phoneColors[phone.status]} variant="light">
                  {badgeWords(phone)}
                </Badge>
                {phone.reason ? (
                  <Text size="xs" c="dimmed" mt={2}>
                    {phone.reason}
                    {phone.code?.startsWith('INSTALL_') ? ` (${phone.code})` : ''}
                  </Text>
                ) : null}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export interface RolloutDialogProps {
  opened: boolean;
  onClose: () => void;
  library: AppLibrary;
  /** The version chosen from the library's row, if any. */
  versionId?: string | null;
  action?: AppRolloutAction;
}

export function RolloutDialog({ opened, onClose, library, versionId: chosen = null, action: initial = 'install' }: RolloutDialogProps) {
  const start = useStartRollout();
  const devices = useDevices({ limit: 1000 });
  const groups = useGroups();
  const rollouts = useRollouts();
  const [action, setAction] = useState<AppRolloutAction>(initial);
  const [versionId, setVersionId] = useState<string | null>(chosen);
  const [removePackage, setRemovePackage] = useState<string | null>(null);
  const [deviceIds, setDeviceIds] = useState<string[]>([]);
  const [groupId, setGroupId] = useState<string | null>(null);
  const [firstStage, setFirstStage] = useState<number | string>(DEFAULT_FIRST_STAGE);
  const [allowDowngrade, setAllowDowngrade] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [startedId, setStartedId] = useState<string | null>(null);
  const started = startedId ? rollouts.data?.find((row) => row.id === startedId) : undefined;

  const packages = [...new Set(library.versions.map((version) => version.package))];
  const submit = () => {
    setError(null);
    start.mutate(
      {
        action,
        ...(action === 'remove' ? { package: removePackage ?? '' } : { versionId: versionId ?? '' }),
        ...(deviceIds.length > 0 ? { deviceIds } : {}),
        ...(groupId ? { groupId } : {}),
        firstStageSize: typeof firstStage === 'number' ? firstStage : Number(firstStage),
        allowDowngrade,
      },
      {
        onSuccess: (rollout) => {
          setStartedId(rollout.id);
          toast('Rollout Started', `${rollout.phones.length} phone(s), ${Math.min(rollout.firstStageSize, rollout.phones.length)} first.`);
        },
        onError: (failure) => setError(refusalMessage(failure, 'Failed to start the rollout')),
      },
    );
  };

  return (
    <FormModal opened={opened} onClose={onClose} title="Roll out an app" size="lg">
      {started ? (
        <Stack>
          <RolloutResults rollout={started} />
          <Group justify="flex-end">
            <Button onClick={onClose}>Close</Button>
          </Group>
        </Stack>
      ) : (
        <form
          aria-label="Roll out an app"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <Stack>
            <SegmentedControl
              aria-label="Action"
              value={action}
              onChange={(value) => setAction(value as AppRolloutAction)}
              data={[
                { value: 'install', label: 'Install' },
                { value: 'update', label: 'Update' },
                { value: 'remove', label: 'Remove' },
              ]}
            />
            {action === 'remove' ? (
              <Select label="App to remove" data={packages} value={removePackage} onChange={setRemovePackage} searchable placeholder="Choose the app" />
            ) : (
              <Select
                label="Version"
                value={versionId}
                onChange={setVersionId}
                placeholder="Choose the version"
                data={library.versions.map((version) => ({ value: version.id, label: `${version.package} ${versionLabel(version)}` }))}
                searchable
              />
            )}
            <MultiSelect
              label="Phones"
              data={(devices.data ?? []).map((device) => ({ value: device.id, label: device.name }))}
              value={deviceIds}
              onChange={setDeviceIds}
              searchable
              placeholder="Choose phones"
            />
            <Select
              label="Or a group"
              data={(groups.data ?? []).map((group) => ({ value: group.id, label: `${group.name} (${group.deviceIds.length})` }))}
              value={groupId}
              onChange={setGroupId}
              clearable
              placeholder="Every phone of a group"
            />
            <NumberInput
              label="Phones in the first stage"
              description="The rest get it only once every phone of the first stage succeeded."
              min={1}
              max={100}
              value={firstStage}
              onChange={setFirstStage}
            />
            {action !== 'remove' ? (
              <Switch
                label="Allow a downgrade (roll back to an older version)"
                checked={allowDowngrade}
                onChange={(event) => setAllowDowngrade(event.currentTarget.checked)}
              />
            ) : null}
            {error ? (
              <Alert color="red" variant="light" role="alert">
                {error}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={start.isPending}>
                Start Rollout
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </FormModal>
  );
}
