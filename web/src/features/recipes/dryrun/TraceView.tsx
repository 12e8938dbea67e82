/**
 * A dry run's trace (`/dry-runs/:id`): the run's status as it happens, and each step as a row — its number, label,
 * verdict, time and selector — that opens to the screenshot with the matched node outlined and the tree it read (the
 * matched node marked). Step by step, "Next step" and "Stop" steer the phone; at the end, the pass and what it
 * verified, or the failure.
 */
import { Alert, Badge, Button, Card, Code, Group, Loader, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import type { DryRun, DryRunDetail, TraceStepOut } from '@farm/contracts';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { refusalMessage } from '../../../shared/refusal';
import { errorToast } from '../../../shared/toast';
import { platformOf } from '../../devices/inspect/recorder';
import { useDryRun, useSteerDryRun, useStepTree, type TraceTree } from './dryrun.api';

const verdictBadge: Record<TraceStepOut['verdict'], { label: string; color: string }> = {
  done: { label: 'Done', color: 'green' },
  skipped: { label: 'Skipped', color: 'gray' },
  failed: { label: 'Failed', color: 'red' },
  stopped: { label: 'Stopped', color: 'orange' },
};

const statusBadge: Record<DryRun['status'], { label: string; color: string }> = {
  starting: { label: 'Starting', color: 'blue' },
  running: { label: 'Running', color: 'blue' },
  passed: { label: 'Passed', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
  stopped: { label: 'Stopped', color: 'orange' },
};

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The app as a person names it: "Instagram 312.0 (en-US)". */
export function appText(app: NonNullable<DryRun['app']>): string {
  const platform = platformOf(app.package);
  const name = platform === 'instagram' ? 'Instagram' : platform === 'tiktok' ? 'TikTok' : app.package;
  return `${name} ${app.version}${app.locale ? ` (${app.locale})` : ''}`;
}

/** How the run ended, in one sentence (a stop the phone gave no words for takes its stopped step's). */
export function outcomeText(run: DryRun, trace: readonly TraceStepOut[] = []): string | null {
  if (run.status === 'passed') {
    // A verification belongs to this version of the recipe only, and only an operator's run makes one.
    if (run.verified && run.app) return `Passed — ${appText(run.app)} is now verified for this version of the recipe`;
    return run.effects
      ? 'Passed — nothing verified: only a passing run an operator starts verifies an app version'
      : 'Passed with no effects: the counted steps were not run, so nothing new is verified';
  }
  if (run.status === 'failed') return `Failed: ${run.failure?.message || run.failure?.code || 'no reason given'}`;
  if (run.status === 'stopped') {
    const why = run.failure?.message || trace.findLast((step) => step.verdict === 'stopped')?.detail;
    return `Stopped${why ? `: ${why}` : ''}`;
  }
  return null;
}

function nodeName(node: TraceTree['nodes'][number], at: number): string {
  const shortClass = node.className.split('.').at(-1) || 'node';
  const name = node.resourceId.split(':id/').at(-1) || node.desc || node.text;
  return `${at}. ${shortClass}${name ? `: ${name.slice(0, 60)}` : ''}`;
}

function StepEvidence({ runId, step }: { runId: string; step: TraceStepOut }) {
  const tree = useStepTree(runId, step.seq, step.hasTree);
  const screen = tree.data ? { width: tree.data.width, height: tree.data.height } : null;
  const bounds = step.matched?.bounds;
  const matchedNode = step.matched?.node ?? null;
  return (
    <Stack gap="sm" mt="xs">
      {step.detail ? <Text size="sm">{step.detail}</Text> : null}
      {step.selector ? (
        <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {JSON.stringify(step.selector)}
        </Code>
      ) : null}
      <Group align="flex-start" gap="md" wrap="wrap">
        {step.frameUrl ? (
          <div style={{ position: 'relative', width: 'min(100%, 280px)', flex: '0 0 auto' }}>
            <img src={step.frameUrl} alt={`Screen after step ${step.seq}: ${step.label}`} style={{ width: '100%', display: 'block', borderRadius: 6 }} />
            {bounds && screen ? (
              <div
                data-testid="matched-outline"
                aria-hidden
                style={{
                  position: 'absolute',
                  left: `${(bounds.left / screen.width) * 100}%`,
                  top: `${(bounds.top / screen.height) * 100}%`,
                  width: `${((bounds.right - bounds.left) / screen.width) * 100}%`,
                  height: `${((bounds.bottom - bounds.top) / screen.height) * 100}%`,
                  outline: '3px solid var(--mantine-color-red-6)',
                  borderRadius: 2,
                }}
              />
            ) : null}
          </div>
        ) : (
          <Text size="sm" c="dimmed">
            No screenshot for this step.
          </Text>
        )}
        {tree.data ? (
          <Stack
            gap={0}
            component="ol"
            aria-label={`Tree of step ${step.seq}`}
            // Scrolls on its own: reachable from the keyboard.
            tabIndex={0}
            style={{ listStyle: 'none', margin: 0, padding: 0, maxHeight: 360, overflowY: 'auto', flex: '1 1 220px', minWidth: 0 }}
          >
            {tree.data.nodes.map((node, at) => (
              <Text
                // biome-ignore lint/suspicious/noArrayIndexKey: a node is its place in the tree, which the step's match names
                key={at}
                component="li"
                size="xs"
                ff="monospace"
                fw={at === matchedNode ? 700 : 400}
                c={at === matchedNode ? 'red' : undefined}
                style={{ paddingLeft: Math.min(node.depth, 12) * 8, overflowWrap: 'anywhere' }}
                aria-current={at === matchedNode ? 'true' : undefined}
              >
                {`${nodeName(node, at)}${at === matchedNode ? ' ← matched' : ''}`}
              </Text>
            ))}
          </Stack>
        ) : step.hasTree && tree.isPending ? (
          <Loader size="sm" aria-label="Loading the tree" />
        ) : null}
      </Group>
    </Stack>
  );
}

function StepRow({ runId, step }: { runId: string; step: TraceStepOut }) {
  const [open, setOpen] = useState(false);
  const verdict = verdictBadge[step.verdict];
  return (
    <Card withBorder padding="sm" radius="md" component="li" aria-label={`Step ${step.seq}: ${step.label}`}>
      <UnstyledButton onClick={() => setOpen((was) => !was)} aria-expanded={open} style={{ width: '100%' }}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <Text fw={600} size="sm">{`${step.seq}.`}</Text>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {step.label || step.do}
            </Text>
          </Group>
          <Group gap="xs">
            <Badge color={verdict.color} variant="light">
              {verdict.label}
            </Badge>
            <Text size="xs" c="dimmed">
              {seconds(step.ms)}
            </Text>
          </Group>
        </Group>
        {step.detail && step.verdict !== 'done' && !open ? (
          // Why it was skipped, stopped or failed, without opening it ("Already liked; left alone.").
          <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
            {step.detail}
          </Text>
        ) : null}
        {step.selector && !open ? (
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {JSON.stringify(step.selector)}
          </Text>
        ) : null}
      </UnstyledButton>
      {open ? <StepEvidence runId={runId} step={step} /> : null}
    </Card>
  );
}

export function TraceView({ run }: { run: DryRunDetail }) {
  const steer = useSteerDryRun(run.id);
  const underWay = run.status === 'starting' || run.status === 'running';
  const status = statusBadge[run.status];
  const outcome = outcomeText(run, run.trace);
  const act = (action: 'next' | 'stop') =>
    steer.mutate(action, {
      onError: (error) => errorToast('Error', refusalMessage(error, action === 'next' ? 'The phone did not go on' : 'The run did not stop')),
    });
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <div style={{ minWidth: 0 }}>
          <Title order={1} fz="xl" style={{ overflowWrap: 'anywhere' }}>{`Dry run: ${run.recipeName} v${run.recipeVersion}`}</Title>
          <Text size="sm" c="dimmed">
            {`${run.deviceName ?? 'A removed phone'} · ${run.mode === 'step' ? 'Step by step' : 'Straight through'} · ${run.effects ? 'With effects' : 'No effects'} · started by ${run.startedByName ?? 'someone'}`}
          </Text>
        </div>
        <Badge size="lg" color={status.color} variant="light" aria-label={`Status: ${status.label}`}>
          {status.label}
        </Badge>
      </Group>
      {underWay ? (
        <Group gap="sm">
          {run.mode === 'step' ? (
            <Button onClick={() => act('next')} loading={steer.isPending && steer.variables === 'next'}>
              Next step
            </Button>
          ) : null}
          <Button variant="light" color="red" onClick={() => act('stop')} loading={steer.isPending && steer.variables === 'stop'}>
            Stop
          </Button>
        </Group>
      ) : null}
      {outcome ? (
        <Alert color={run.status === 'passed' ? 'green' : run.status === 'failed' ? 'red' : 'orange'} variant="light" role="status">
          {outcome}
        </Alert>
      ) : null}
      <Title order={2} fz="lg">
        Trace
      </Title>
      {run.trace.length === 0 ? (
        <Text size="sm" c="dimmed">
          {underWay ? 'Waiting for the first step...' : 'No step was traced.'}
        </Text>
      ) : (
        <Stack gap="xs" component="ol" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Trace steps">
          {run.trace.map((step) => (
            <StepRow key={step.seq} runId={run.id} step={step} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/** The page at `/dry-runs/:id`. */
export function DryRunPage() {
  const { id = '' } = useParams();
  const run = useDryRun(id);
  return (
    <Stack gap="md" p={{ base: 'sm', sm: 'md' }} style={{ maxWidth: 960, minWidth: 0 }}>
      <Text size="sm">
        <Link to="/campaigns/recipes">Back to Recipes</Link>
      </Text>
      {run.isPending ? (
        <Loader aria-label="Loading the dry run" />
      ) : run.error ? (
        <Alert color="red" role="alert">
          {refusalMessage(run.error, 'This dry run could not be read')}
        </Alert>
      ) : (
        <TraceView run={run.data} />
      )}
    </Stack>
  );
}
