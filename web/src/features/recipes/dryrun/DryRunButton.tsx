/**
 * "Dry Run" on a workspace recipe: a dialog to choose a phone (online ones; a VA sees the phones assigned to them), the
 * mode and whether the run may have effects, with the pre-flight shown before Start: the phone's account, its app
 * version and whether the recipe covers it, the counted actions with what is left of today's caps, and a paused
 * account. A recipe that copies files to the phone gets its media as uploads picked here (stored in the workspace,
 * fetched by the phone as a post's media are). Start opens the run's trace. A VA
 * is told their run verifies nothing: only an operator's run does.
 */
import { Alert, Badge, Button, Checkbox, Group, List, Modal, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { uploadLimits, type DryRunPreflight } from '@farm/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { refusalMessage } from '../../../shared/refusal';
import { useDevices } from '../../../shared/resources';
import { useCurrentUser } from '../../auth/auth.api';
import { ImageDropzone } from '../../../shared/uploads/ImageDropzone';
import { ImageThumbs } from '../../../shared/uploads/ImageThumbs';
import { formatBytes, imageRestrictions, uploadObjectPath } from '../../../shared/uploads/uploads';
import { useDryRunPreflight, useStartDryRun } from './dryrun.api';

/** Files one dry run may take, as a post does. */
const MAX_DRY_RUN_MEDIA = 10;

const actionWords: Record<DryRunPreflight['counted'][number]['action'], string> = { like: 'Likes', follow: 'Follows', comment: 'Comments', post: 'Posts' };

function Preflight({ preflight, effects }: { preflight: DryRunPreflight; effects: boolean }) {
  const { account, app, coverage, counted, blocked } = preflight;
  return (
    <Stack gap={6} aria-label="Pre-flight">
      {blocked ? (
        <Alert color="red" variant="light" role="alert" title="This phone cannot dry-run now">
          {blocked}
        </Alert>
      ) : null}
      <Text size="sm">
        <Text span fw={600}>
          Account:{' '}
        </Text>
        {account ? `@${account.username}` : 'No account of this platform is linked to this phone'}
      </Text>
      <Group gap="xs">
        <Text size="sm">
          <Text span fw={600}>
            App:{' '}
          </Text>
          {app.version ? `${app.package} ${app.version}` : `${app.package}: version not reported`}
        </Text>
        {coverage ? (
          <Badge color={coverage.covered ? 'green' : 'yellow'} variant="light">
            {coverage.covered ? (coverage.by === 'verified' ? 'Verified' : 'Covered') : 'Not covered yet'}
          </Badge>
        ) : null}
      </Group>
      {coverage && !coverage.covered && coverage.reason ? (
        <Text size="xs" c="dimmed">
          {coverage.reason}
        </Text>
      ) : null}
      {counted.length > 0 ? (
        <div>
          <Text size="sm" fw={600}>
            Counted actions (today&apos;s caps)
          </Text>
          <List size="sm">
            {counted.map((item) => (
              <List.Item key={item.action}>
                {`${actionWords[item.action]}: ${item.left === null ? `cap ${item.cap ?? '—'}` : `${item.left} of ${item.cap ?? '—'} left`}`}
              </List.Item>
            ))}
          </List>
          {!effects ? (
            <Text size="xs" c="dimmed">
              With no effects, the run stops before the first of these.
            </Text>
          ) : null}
        </div>
      ) : (
        <Text size="sm">This recipe counts no likes, follows, comments or posts.</Text>
      )}
      {account?.paused ? (
        <Alert color="orange" variant="light" role="status">
          The account is paused: only a no-effects run is allowed
        </Alert>
      ) : null}
    </Stack>
  );
}

export interface DryRunButtonProps {
  /** The workspace recipe's row id (Campaigns → Recipes). */
  recipeId: string;
  recipeName: string;
}

export function DryRunButton({ recipeId, recipeName }: DryRunButtonProps) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button size="xs" variant="light" onClick={() => setOpened(true)} aria-label={`Dry run ${recipeName}`}>
        Dry Run
      </Button>
      {opened ? <DryRunDialog recipeId={recipeId} recipeName={recipeName} onClose={() => setOpened(false)} /> : null}
    </>
  );
}

function DryRunDialog({ recipeId, recipeName, onClose }: DryRunButtonProps & { onClose: () => void }) {
  const me = useCurrentUser();
  const devices = useDevices();
  const [deviceId, setDeviceId] = useState<string | null>(null);
  const [mode, setMode] = useState<'straight' | 'step'>('step');
  const [noEffects, setNoEffects] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [media, setMedia] = useState<string[]>([]);
  const preflight = useDryRunPreflight(recipeId, deviceId);
  const start = useStartDryRun();
  const navigate = useNavigate();

  const phones = (devices.data ?? []).filter((device) => device.status !== 'offline' && (me?.role === 'operator' || device.assignedToId === me?.id));
  const paused = preflight.data?.account?.paused ?? false;
  const blocked = preflight.data?.blocked ?? null;
  const effectsRefused = paused && !noEffects && (preflight.data?.counted.length ?? 0) > 0;
  const needsMedia = preflight.data?.needsMedia ?? false;

  const submit = () => {
    if (!deviceId) return;
    setError(null);
    start.mutate(
      { recipeId, deviceId, mode, effects: !noEffects, ...(needsMedia && media.length > 0 ? { media } : {}) },
      {
        onSuccess: (run) => {
          onClose();
          void navigate(`/dry-runs/${run.id}`);
        },
        onError: (failure) => setError(refusalMessage(failure, 'The dry run could not start')),
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title="Dry run" size="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">{`${recipeName}, on one phone: its tasks wait until the run ends.`}</Text>
        {me?.role === 'operator' ? null : (
          <Text size="sm" c="dimmed">
            Your run checks this version of the recipe on your phone; only a passing run an operator starts verifies an app version for it.
          </Text>
        )}
        <Select
          label="Phone"
          placeholder={phones.length === 0 ? 'No phone of yours is online' : 'Choose a phone'}
          data={phones.map((device) => ({ value: device.id, label: device.name }))}
          value={deviceId}
          onChange={setDeviceId}
          disabled={phones.length === 0}
          comboboxProps={{ withinPortal: true }}
        />
        <div>
          <Text size="sm" fw={500} mb={4} id="dry-run-mode">
            Mode
          </Text>
          <SegmentedControl
            aria-labelledby="dry-run-mode"
            value={mode}
            onChange={(value) => setMode(value as 'straight' | 'step')}
            data={[
              { value: 'straight', label: 'Straight through' },
              { value: 'step', label: 'Step by step' },
            ]}
          />
        </div>
        <Checkbox
          label="No effects: stop before any step that likes, follows, comments or posts"
          checked={noEffects}
          onChange={(event) => setNoEffects(event.currentTarget.checked)}
        />
        {deviceId && preflight.isPending ? <Text size="sm">Checking the phone...</Text> : null}
        {preflight.error ? (
          <Alert color="red" variant="light" role="alert">
            {refusalMessage(preflight.error, 'The pre-flight could not run')}
          </Alert>
        ) : null}
        {preflight.data ? <Preflight preflight={preflight.data} effects={!noEffects} /> : null}
        {needsMedia ? (
          <Stack gap="xs">
            <ImageDropzone
              label="Media for the run"
              restrictions={{ ...imageRestrictions, maxFiles: MAX_DRY_RUN_MEDIA }}
              held={media.length}
              upload={uploadObjectPath}
              onUploaded={(files) => setMedia((current) => [...current, ...files.map((file) => file.path)].slice(0, MAX_DRY_RUN_MEDIA))}
              hint={`This recipe copies files to the phone: upload up to ${MAX_DRY_RUN_MEDIA} images, ${formatBytes(uploadLimits.maxFileSize)} each. The phone fetches them from the console.`}
            />
            <ImageThumbs paths={media} onRemove={(index) => setMedia((current) => current.filter((_, at) => at !== index))} />
          </Stack>
        ) : null}
        {effectsRefused ? (
          <Text size="sm" c="red" role="alert">
            Turn on No effects, or resume the account first.
          </Text>
        ) : null}
        {error ? (
          <Alert color="red" variant="light" role="alert" title="Not started">
            {error}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={start.isPending} disabled={!deviceId || !preflight.data || Boolean(blocked) || effectsRefused}>
            Start
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
