/**
 * A failed run's evidence, wherever a failure shows (the task, the post, the phone's history): the step it failed on,
 * the selector that missed, the phone's words, the screen with what it matched or touched outlined, the screen's
 * elements on demand, the app and its version, and Re-record from here — which opens the Live tab of a phone with the
 * same app version (the failed one first), Record offered there once the person takes control.
 */
import { Alert, Box, Button, Code, Group, Image, Stack, Switch, Text, Title } from '@mantine/core';
import { IconPlayerRecordFilled } from '@tabler/icons-react';
import { failureLabels, type FailureEvidence as Evidence } from '@farm/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { formatDateTime } from '../../../shared/format';
import { Detail } from '../../../shared/ui/Detail';
import { FormModal } from '../../../shared/ui/FormModal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { rerecordPhones, useEvidenceTree, useFailureEvidence, type EvidenceSource } from './evidence.api';
import { appName, appText, nodeText, rerecordHref, selectorFields, stepName } from './evidence.labels';

/** The screen the step failed on, with the node it matched and the point it touched outlined. */
function EvidenceScreen({ evidence, screen }: { evidence: Evidence; screen: { width: number; height: number } | null }) {
  const frame = evidence.frame;
  if (!frame) return null;
  const size = screen ?? { width: frame.width, height: frame.height };
  const bounds = evidence.matched?.bounds;
  const point = evidence.point;
  return (
    <Box pos="relative" style={{ width: '100%', maxWidth: 280, alignSelf: 'center' }}>
      <Image src={frame.url} alt={`The screen at ${stepName(evidence.step.path)}, when it failed`} radius="sm" style={{ display: 'block' }} />
      {bounds || point ? (
        <svg
          viewBox={`0 0 ${size.width} ${size.height}`}
          preserveAspectRatio="none"
          style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', pointerEvents: 'none' }}
          aria-hidden
        >
          {bounds ? (
            <rect
              x={bounds.left}
              y={bounds.top}
              width={Math.max(1, bounds.right - bounds.left)}
              height={Math.max(1, bounds.bottom - bounds.top)}
              fill="none"
              stroke="#fa5252"
              strokeWidth={Math.max(3, size.width / 150)}
            />
          ) : null}
          {point ? (
            <circle cx={point.x} cy={point.y} r={Math.max(10, size.width / 40)} fill="none" stroke="#fab005" strokeWidth={Math.max(3, size.width / 150)} />
          ) : null}
        </svg>
      ) : null}
    </Box>
  );
}

/** The screen's elements, one a line, indented by depth: id, text and description (or the class when none). */
function EvidenceElements({ taskId }: { taskId: string }) {
  const tree = useEvidenceTree(taskId, true);
  if (tree.isPending) return <LoadingState label="Loading the screen's elements..." />;
  if (!tree.data) return <EmptyText>The screen's elements could not be loaded</EmptyText>;
  return (
    <Box
      component="ul"
      aria-label="The screen's elements"
      // Scrolls on its own: reachable from the keyboard.
      tabIndex={0}
      p="xs"
      m={0}
      style={{ listStyle: 'none', maxHeight: 320, overflowY: 'auto', overflowX: 'hidden', border: '1px solid var(--mantine-color-gray-3)', borderRadius: 4 }}
    >
      {tree.data.nodes.map((node, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: nodes are in document order and never move
        <Text key={index} component="li" size="xs" ff="monospace" style={{ paddingLeft: Math.min(node.depth, 24) * 6, overflowWrap: 'anywhere' }}>
          {nodeText(node)}
        </Text>
      ))}
    </Box>
  );
}

/** Re-record from here: a phone with the same app version, online now and the person's to control. */
function Rerecord({ evidence }: { evidence: Evidence }) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const app = evidence.app;
  if (!app?.version) {
    return (
      <Text size="sm" c="dimmed">
        The run failed before it read the app's version, so there is no phone to re-record on.
      </Text>
    );
  }
  const start = () => {
    setBusy(true);
    setNotice(null);
    rerecordPhones({ package: app.package, version: app.version ?? '', deviceId: evidence.device?.id })
      .then((phones) => {
        const phone = phones[0];
        if (phone) void navigate(rerecordHref(phone.id));
        else setNotice(`No phone with ${appName(app.package)} ${app.version} is online now`);
      })
      .catch(() => setNotice('The phones could not be listed. Try again.'))
      .finally(() => setBusy(false));
  };
  return (
    <Stack gap={6}>
      <Button leftSection={<IconPlayerRecordFilled size={16} />} onClick={start} loading={busy} style={{ alignSelf: 'flex-start' }}>
        Re-record from here
      </Button>
      {notice ? (
        <Text size="sm" c="orange.9" role="status">
          {notice}
        </Text>
      ) : (
        <Text size="xs" c="dimmed">
          {`Opens the Live tab of a phone with ${appText(app)}; take control there and press Record.`}
        </Text>
      )}
    </Stack>
  );
}

/** One failed step's evidence, as read. */
export function FailureEvidence({ evidence }: { evidence: Evidence }) {
  const [showElements, setShowElements] = useState(false);
  const tree = useEvidenceTree(evidence.taskId, evidence.hasTree && (evidence.matched !== null || evidence.point !== null));
  const screen = tree.data ? { width: tree.data.width, height: tree.data.height } : null;
  const fields = selectorFields(evidence.selector);
  const reason = evidence.failureMessage ?? (evidence.failureCode ? failureLabels[evidence.failureCode] : null);
  return (
    <Stack gap="md">
      <div>
        <Title order={3} fz="md">
          {`${stepName(evidence.step.path)} · ${evidence.step.label || evidence.step.do}`}
        </Title>
        <Text size="xs" c="dimmed">
          {`${evidence.taskTitle}, attempt ${evidence.attempt} · ${formatDateTime(evidence.createdAt)}`}
        </Text>
      </div>
      {fields.length > 0 ? (
        <Detail breakAnywhere label="The selector that missed">
          <Group gap={6} wrap="wrap" mt={2}>
            {fields.map((field) => (
              <Code key={field} style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>
                {field}
              </Code>
            ))}
          </Group>
        </Detail>
      ) : null}
      {evidence.step.detail ? (
        <Detail breakAnywhere label="What the phone found">
          {evidence.step.detail}
        </Detail>
      ) : null}
      {reason ? (
        <Detail breakAnywhere label="Why the run failed">
          {reason}
        </Detail>
      ) : null}
      <Group gap="lg" wrap="wrap">
        <Detail breakAnywhere label="App">
          {appText(evidence.app)}
        </Detail>
        <Detail breakAnywhere label="Phone">
          {evidence.device?.name ?? 'Removed from the fleet'}
        </Detail>
        {evidence.recipe ? (
          <Detail breakAnywhere label="Recipe">{`${evidence.recipe.id}${evidence.recipe.version !== null ? ` v${evidence.recipe.version}` : ''}`}</Detail>
        ) : null}
        <Detail breakAnywhere label="Step took">{`${(evidence.step.ms / 1000).toFixed(1)} s`}</Detail>
      </Group>
      {evidence.dropped ? (
        <Alert color="yellow" variant="light">
          {evidence.dropped}
        </Alert>
      ) : null}
      <EvidenceScreen evidence={evidence} screen={screen} />
      {evidence.hasTree ? (
        <Stack gap={6}>
          <Switch label="Show the screen's elements" checked={showElements} onChange={(event) => setShowElements(event.currentTarget.checked)} />
          {showElements ? <EvidenceElements taskId={evidence.taskId} /> : null}
        </Stack>
      ) : null}
      <Rerecord evidence={evidence} />
    </Stack>
  );
}

/** The evidence of a task or a post, read when the modal opens. */
function EvidenceBody({ source }: { source: EvidenceSource }) {
  const evidence = useFailureEvidence(source);
  if (evidence.isPending) return <LoadingState label="Loading the failure's evidence..." />;
  if (evidence.isError) return <EmptyText>The failure's evidence could not be loaded</EmptyText>;
  if (!evidence.data) return <EmptyText>{source.kind === 'task' ? 'This task has no failure evidence' : 'This post has no failure evidence'}</EmptyText>;
  return <FailureEvidence evidence={evidence.data} />;
}

/** A button that opens a failure's evidence in a modal. */
export function FailureEvidenceButton({ source, label = 'Failure evidence', ariaLabel }: { source: EvidenceSource; label?: string; ariaLabel?: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => setOpened(true)} aria-label={ariaLabel}>
        {label}
      </Button>
      <FormModal opened={opened} onClose={() => setOpened(false)} title="Failure evidence" size="lg">
        {opened ? <EvidenceBody source={source} /> : null}
      </FormModal>
    </>
  );
}
