/**
 * Devices → Apps (issue #42): the workspace's app library (APKs and split sets, read by the server for package,
 * version and ABIs), staged rollouts with a result per phone, pinned versions per group, and the phones whose app
 * version no recipe covers. Operators only.
 */
import { Alert, Badge, Button, Card, FileInput, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconUpload } from '@tabler/icons-react';
import type { AppLibrary, AppRolloutAction, AppVersion } from '@farm/contracts';
import { useState } from 'react';
import { refusalMessage } from '../../shared/refusal';
import { errorToast, toast } from '../../shared/toast';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { LoadingState } from '../../shared/ui/LoadingState';
import { ScrollX } from '../../shared/ui/ScrollX';
import { formatStorageSize } from '../../shared/format';
import { useGroups } from '../groups/groups.api';
import { useAppLibrary, useCoverageWarnings, useDeleteApp, usePinVersion, useRollouts, useUnpin, useUploadApp } from './apps.api';
import { versionLabel } from './apps.format';
import { RolloutDialog, RolloutResults } from './RolloutDialog';
import { TableHead } from '../../shared/ui/TableHead';

function UploadForm({ maxBytes }: { maxBytes: number }) {
  const upload = useUploadApp();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = () => {
    if (!file) {
      setError('Choose an APK or a split set (.apks, .xapk, .apkm)');
      return;
    }
    setError(null);
    upload.mutate(file, {
      onSuccess: (version) => {
        toast('App Added', `${version.package} ${versionLabel(version)} is in the library.`);
        setFile(null);
      },
      onError: (failure) => setError(refusalMessage(failure, 'Failed to upload the app')),
    });
  };
  return (
    <form
      aria-label="Upload an app"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Group align="flex-end" gap="sm" wrap="wrap">
        <FileInput
          label="APK or split set"
          description={`.apk, .apks, .xapk or .apkm, up to ${formatStorageSize(maxBytes)}`}
          accept=".apk,.apks,.xapk,.apkm,application/vnd.android.package-archive,application/zip"
          value={file}
          onChange={setFile}
          error={error}
          clearable
          style={{ flex: '1 1 240px' }}
        />
        <Button type="submit" leftSection={<IconUpload size={16} />} loading={upload.isPending}>
          Upload
        </Button>
      </Group>
    </form>
  );
}

function LibraryTable({ library, onRollout }: { library: AppLibrary; onRollout: (version: AppVersion) => void }) {
  const remove = useDeleteApp();
  const [removing, setRemoving] = useState<AppVersion | null>(null);
  if (library.versions.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No apps yet. Upload an APK or a split set to install it on phones.
      </Text>
    );
  return (
    <>
      <ScrollX label="App library" minWidth={720}>
        <Table striped aria-label="App library">
          <TableHead columns={['App', 'Version', 'ABIs', 'Size', 'Recipes', 'Actions']} />
          <Table.Tbody>
            {library.versions.map((version) => (
              <Table.Tr key={version.id}>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {version.package}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {version.fileName}
                    {version.kind === 'split_set' ? ` · ${version.files.length} APKs` : ''}
                  </Text>
                </Table.Td>
                <Table.Td>{versionLabel(version)}</Table.Td>
                <Table.Td>{version.abis.length > 0 ? version.abis.join(', ') : 'any'}</Table.Td>
                <Table.Td>{formatStorageSize(version.size)}</Table.Td>
                <Table.Td>
                  {version.coverage.covered ? (
                    <Badge color="teal" variant="light">
                      Covered
                    </Badge>
                  ) : (
                    <>
                      <Badge color="orange" variant="light">
                        Not covered
                      </Badge>
                      <Text size="xs" c="dimmed" mt={2}>
                        {version.coverage.reason}
                      </Text>
                    </>
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Button size="xs" onClick={() => onRollout(version)} aria-label={`Roll out ${version.package} ${versionLabel(version)}`}>
                      Roll Out
                    </Button>
                    <Button
                      size="xs"
                      variant="default"
                      color="red"
                      onClick={() => setRemoving(version)}
                      aria-label={`Remove ${version.package} ${versionLabel(version)}`}
                    >
                      Remove
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollX>
      <ConfirmModal
        opened={removing !== null}
        title="Remove from the library?"
        message={removing ? `${removing.package} ${versionLabel(removing)} will be removed from the library. Phones keep what they have installed.` : ''}
        confirmLabel="Remove"
        loading={remove.isPending}
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          if (!removing) return;
          remove.mutate(removing.id, {
            onSuccess: () => {
              toast('App Removed', `${removing.package} ${versionLabel(removing)} is no longer in the library.`);
              setRemoving(null);
            },
            onError: (failure) => {
              errorToast('Error', refusalMessage(failure, 'Failed to remove the app'));
              setRemoving(null);
            },
          });
        }}
      />
    </>
  );
}

function PinsPanel({ library }: { library: AppLibrary }) {
  const groups = useGroups();
  const pin = usePinVersion();
  const unpin = useUnpin();
  const [groupId, setGroupId] = useState<string | null>(null);
  const [versionId, setVersionId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const groupName = (id: string) => groups.data?.find((group) => group.id === id)?.name ?? 'A group';
  return (
    <Stack gap="xs">
      <Title order={3} fz="md">
        Pinned versions
      </Title>
      <Text size="sm" c="dimmed">
        A group's phones are never updated past its pinned version: a rollout that would do so is refused.
      </Text>
      <form
        aria-label="Pin a version"
        onSubmit={(event) => {
          event.preventDefault();
          if (!groupId || !versionId) {
            setError('Choose a group and a version');
            return;
          }
          pin.mutate(
            { groupId, versionId },
            {
              onSuccess: () => {
                toast('Version Pinned', `${groupName(groupId)} stays at this version.`);
                setError(null);
              },
              onError: (failure) => setError(refusalMessage(failure, 'Failed to pin the version')),
            },
          );
        }}
      >
        <Group align="flex-end" gap="sm" wrap="wrap">
          <Select
            label="Group"
            data={(groups.data ?? []).map((group) => ({ value: group.id, label: group.name }))}
            value={groupId}
            onChange={setGroupId}
            placeholder="Choose a group"
            style={{ flex: '1 1 160px' }}
          />
          <Select
            label="Version"
            data={library.versions.map((version) => ({ value: version.id, label: `${version.package} ${versionLabel(version)}` }))}
            value={versionId}
            onChange={setVersionId}
            placeholder="Choose a version"
            error={error}
            style={{ flex: '2 1 220px' }}
          />
          <Button type="submit" variant="light" loading={pin.isPending}>
            Pin
          </Button>
        </Group>
      </form>
      {library.pins.length > 0 ? (
        <Stack gap={4}>
          {library.pins.map((row) => (
            <Group key={`${row.groupId}:${row.package}`} justify="space-between" wrap="wrap" gap="xs">
              <Text size="sm">
                <b>{groupName(row.groupId)}</b>: {row.package} {versionLabel(row)}
              </Text>
              <Button
                size="xs"
                variant="subtle"
                aria-label={`Unpin ${row.package} for ${groupName(row.groupId)}`}
                onClick={() =>
                  unpin.mutate(
                    { groupId: row.groupId, packageName: row.package },
                    { onError: (failure) => errorToast('Error', refusalMessage(failure, 'Failed to unpin')) },
                  )
                }
              >
                Unpin
              </Button>
            </Group>
          ))}
        </Stack>
      ) : null}
    </Stack>
  );
}

function CoverageWarnings() {
  const warnings = useCoverageWarnings();
  if (!warnings.data || warnings.data.length === 0) return null;
  return (
    <Alert color="orange" variant="light" icon={<IconAlertTriangle />} title="App versions no recipe covers">
      <Stack gap={4}>
        {warnings.data.map((warning) => (
          <Text size="sm" key={`${warning.deviceId}:${warning.package}`}>
            <b>{warning.deviceName}</b> has {warning.package} {warning.version}: {warning.reason}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

function RecentRollouts() {
  const rollouts = useRollouts();
  const recent = (rollouts.data ?? []).slice(0, 5);
  if (recent.length === 0) return null;
  return (
    <Stack gap="sm">
      <Title order={3} fz="md">
        Recent rollouts
      </Title>
      {recent.map((rollout) => (
        <ScrollX key={rollout.id} label={`Rollout of ${rollout.package}`} minWidth={420}>
          <RolloutResults rollout={rollout} />
        </ScrollX>
      ))}
    </Stack>
  );
}

export function AppsSection() {
  const library = useAppLibrary();
  const [dialog, setDialog] = useState<{ versionId: string | null; action: AppRolloutAction; key: number } | null>(null);
  const data = library.data;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="apps-title">
      <Group justify="space-between" mb={4} wrap="wrap">
        <Title order={2} fz="lg" id="apps-title">
          Apps
        </Title>
        {data && data.versions.length > 0 ? (
          <Button size="xs" variant="default" onClick={() => setDialog({ versionId: null, action: 'remove', key: Date.now() })}>
            Remove an App from Phones
          </Button>
        ) : null}
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        Upload APKs and split sets, then install or update them on phones a few at a time: the first phones must all succeed before the rest get it. Files count
        against the workspace's storage.
      </Text>
      {library.isPending ? (
        <LoadingState label="Loading the app library..." />
      ) : library.isError || !data ? (
        <Alert color="red" variant="light">
          {refusalMessage(library.error, 'Failed to load the app library')}
        </Alert>
      ) : (
        <Stack gap="lg">
          <CoverageWarnings />
          <UploadForm maxBytes={data.maxUploadBytes} />
          <LibraryTable library={data} onRollout={(version) => setDialog({ versionId: version.id, action: 'update', key: Date.now() })} />
          <RecentRollouts />
          <PinsPanel library={data} />
          {dialog ? (
            <RolloutDialog key={dialog.key} opened onClose={() => setDialog(null)} library={data} versionId={dialog.versionId} action={dialog.action} />
          ) : null}
        </Stack>
      )}
    </Card>
  );
}
