/**
 * Inspect (the recipe studio): a phone's screen as its UI tree sees it. Hovering the frame outlines the element under
 * the pointer; clicking one (or choosing it in the list) shows its attributes and the selectors that find it, each
 * marked unique or not on this screen. A capture is saved under a screen name, and a selector is checked against
 * every saved capture of that screen: green where it still finds its node, red where it no longer does.
 */
import { Alert, Badge, Button, Code, Group, Loader, Modal, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconCamera, IconCopy, IconDeviceFloppy, IconListSearch } from '@tabler/icons-react';
import { isOnScreen, nodeAt, selectorsFor, type Selector, type SelectorCandidate } from '@farm/agent-protocol/inspect';
import type { LiveCaptureOut, SelectorCheck } from '@farm/contracts';
import { useEffect, useMemo, useState, type MouseEvent } from 'react';
import { errorToast, toast } from '../../../shared/toast';
import { frameDataUrl, useCheckSelector, useSaveCapture } from './inspect.api';

type Tree = LiveCaptureOut['tree'];
type Node = Tree['nodes'][number];

/** How a node is named in the list: its class, and its id, description or text. */
export function nodeLabel(node: Node, at: number): string {
  const shortClass = node.className.split('.').at(-1) || 'node';
  const name = node.resourceId.split(':id/').at(-1) || node.desc || node.text;
  return `${at}. ${shortClass}${name ? `: ${name.slice(0, 60)}` : ''}`;
}

/** A selector as it is written in a recipe. */
export function selectorText(selector: Selector): string {
  return JSON.stringify(selector);
}

function SelectorBadge({ candidate }: { candidate: SelectorCandidate }) {
  if (candidate.unique && candidate.selector.index === undefined) return <Badge color="green">Unique</Badge>;
  if (candidate.unique) return <Badge color="yellow">Unique by position</Badge>;
  return <Badge color="orange">{`${candidate.matches} matches`}</Badge>;
}

function CheckResults({ check }: { check: SelectorCheck }) {
  if (check.results.length === 0) return <Text size="sm">No capture of this screen is saved yet.</Text>;
  return (
    <Stack gap={4} aria-label="Saved captures of this screen">
      {check.results.map((result) => (
        <Group key={result.captureId} gap="xs" wrap="nowrap">
          {result.finds ? <Badge color="green">Finds it</Badge> : <Badge color="red">{result.matches === 0 ? 'Gone' : `${result.matches} matches`}</Badge>}
          <Text size="sm">{`${result.appVersion || 'unknown version'}${result.locale ? ` · ${result.locale}` : ''} · ${new Date(result.createdAt).toLocaleString()}`}</Text>
        </Group>
      ))}
    </Stack>
  );
}

export interface InspectPanelProps {
  deviceId: string;
  deviceName: string;
  capture: LiveCaptureOut;
  onClose: () => void;
  /** Takes the screen again. */
  onRetake: () => void;
  retaking: boolean;
}

export function InspectPanel({ deviceId, deviceName, capture, onClose, onRetake, retaking }: InspectPanelProps) {
  const narrow = useMediaQuery('(max-width: 48em)');
  const tree = capture.tree;
  const [hover, setHover] = useState<number | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [screenName, setScreenName] = useState('');
  const [checked, setChecked] = useState<{ selector: string; result: SelectorCheck } | null>(null);
  const save = useSaveCapture();
  const check = useCheckSelector();

  const frameUrl = useMemo(() => URL.createObjectURL(new Blob([new Uint8Array(capture.frame.data as ArrayBuffer)], { type: capture.frame.mime })), [capture]);
  useEffect(() => () => URL.revokeObjectURL(frameUrl), [frameUrl]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new capture starts over
  useEffect(() => {
    setHover(null);
    setSelected(null);
    setChecked(null);
  }, [capture]);

  const visible = useMemo(() => tree.nodes.map((node, at) => ({ node, at })).filter(({ node }) => isOnScreen(tree, node)), [tree]);
  const node = selected !== null ? tree.nodes[selected] : undefined;
  const candidates = useMemo(() => (selected !== null ? selectorsFor(tree, selected) : []), [tree, selected]);

  const at = (event: MouseEvent<HTMLDivElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    return nodeAt(tree, ((event.clientX - rect.left) / rect.width) * tree.width, ((event.clientY - rect.top) / rect.height) * tree.height);
  };
  const box = (index: number | null, color: string) => {
    const shown = index !== null ? tree.nodes[index] : undefined;
    if (!shown) return null;
    const { left, top, right, bottom } = shown.bounds;
    return (
      <div
        aria-hidden
        style={{
          position: 'absolute',
          left: `${(left / tree.width) * 100}%`,
          top: `${(top / tree.height) * 100}%`,
          width: `${((right - left) / tree.width) * 100}%`,
          height: `${((bottom - top) / tree.height) * 100}%`,
          outline: `2px solid ${color}`,
          background: `color-mix(in srgb, ${color} 15%, transparent)`,
          pointerEvents: 'none',
        }}
      />
    );
  };

  const saveCapture = () => {
    const name = screenName.trim();
    if (!name) {
      errorToast('Error', 'Screen name is required');
      return;
    }
    save.mutate(
      { deviceId, screenName: name, tree, frame: frameDataUrl(capture.frame.mime, capture.frame.data), app: capture.app },
      {
        onSuccess: () => toast('Capture saved', `"${name}" is kept for comparing selectors after app updates.`),
        onError: (error) => errorToast('Error', error instanceof Error ? error.message : 'The capture could not be saved'),
      },
    );
  };

  const checkSaved = (selector: Selector) => {
    const name = screenName.trim();
    if (!name) {
      errorToast('Error', 'Name the screen first: its saved captures are compared');
      return;
    }
    check.mutate(
      { package: capture.app.package ?? '', screenName: name, selector },
      {
        onSuccess: (result) => setChecked({ selector: selectorText(selector), result }),
        onError: (error) => errorToast('Error', error instanceof Error ? error.message : 'The selector could not be checked'),
      },
    );
  };

  const copy = (selector: Selector) => {
    void navigator.clipboard?.writeText(selectorText(selector)).then(
      () => toast('Copied', selectorText(selector)),
      () => undefined,
    );
  };

  return (
    <Modal opened onClose={onClose} title={`Inspect: ${deviceName}`} size="xl" fullScreen={narrow ?? false}>
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm" c="dimmed">
            {`${capture.app.package ?? 'Unknown app'}${capture.app.version ? ` ${capture.app.version}` : ''}${capture.app.locale ? ` · ${capture.app.locale}` : ''} · ${tree.nodes.length} elements`}
          </Text>
          <Button size="xs" variant="default" leftSection={<IconCamera size={14} />} onClick={onRetake} loading={retaking}>
            Take again
          </Button>
        </Group>
        <Group align="flex-start" gap="md" wrap="wrap">
          {/* biome-ignore lint/a11y/noStaticElementInteractions: the Element list beside it is the keyboard's way to the same choice */}
          <div
            style={{
              position: 'relative',
              width: `min(100%, calc(65vh * ${tree.width} / ${tree.height}))`,
              aspectRatio: `${tree.width} / ${tree.height}`,
              flex: '0 0 auto',
              cursor: 'crosshair',
            }}
            onMouseMove={(event) => setHover(at(event))}
            onMouseLeave={() => setHover(null)}
            onClick={(event) => setSelected(at(event))}
            role="presentation"
          >
            <img src={frameUrl} alt={`Captured screen of ${deviceName}`} style={{ display: 'block', width: '100%', height: '100%' }} draggable={false} />
            {box(hover, 'var(--mantine-color-blue-5)')}
            {box(selected, 'var(--mantine-color-green-5)')}
          </div>
          <Stack gap="sm" style={{ flex: '1 1 280px', minWidth: 0 }}>
            <Select
              label="Element"
              placeholder="Click the screen or choose an element"
              searchable
              data={visible.map(({ node: shown, at: index }) => ({ value: String(index), label: nodeLabel(shown, index) }))}
              value={selected !== null ? String(selected) : null}
              onChange={(value) => setSelected(value === null ? null : Number(value))}
              comboboxProps={{ withinPortal: true }}
            />
            {node ? (
              <>
                <Table withRowBorders={false} verticalSpacing={2} aria-label="Attributes">
                  <Table.Tbody>
                    {(
                      [
                        ['id', node.resourceId || '—'],
                        ['text', node.text || '—'],
                        ['description', node.desc || '—'],
                        ['class', node.className || '—'],
                        ['bounds', `[${node.bounds.left},${node.bounds.top}][${node.bounds.right},${node.bounds.bottom}]`],
                        ['selected', String(node.selected)],
                        ['clickable', String(node.clickable)],
                      ] as const
                    ).map(([name, value]) => (
                      <Table.Tr key={name}>
                        <Table.Th style={{ width: 110 }}>{name}</Table.Th>
                        <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
                <Text fw={600} size="sm">
                  Selectors
                </Text>
                <Stack gap={6} aria-label="Selectors">
                  {candidates.map((candidate) => (
                    <Stack
                      key={selectorText(candidate.selector)}
                      gap={4}
                      style={{ borderBottom: '1px solid var(--mantine-color-default-border)', paddingBottom: 6 }}
                    >
                      <Group gap="xs" wrap="wrap">
                        <Text size="sm">{candidate.kind}</Text>
                        <SelectorBadge candidate={candidate} />
                      </Group>
                      <Code block>{selectorText(candidate.selector)}</Code>
                      <Group gap="xs">
                        <Button size="compact-xs" variant="default" leftSection={<IconCopy size={12} />} onClick={() => copy(candidate.selector)}>
                          Copy
                        </Button>
                        <Button
                          size="compact-xs"
                          variant="light"
                          leftSection={<IconListSearch size={12} />}
                          onClick={() => checkSaved(candidate.selector)}
                          loading={check.isPending}
                        >
                          Check saved captures
                        </Button>
                      </Group>
                      {checked?.selector === selectorText(candidate.selector) ? <CheckResults check={checked.result} /> : null}
                    </Stack>
                  ))}
                  {candidates.length === 0 ? <Text size="sm">No selector finds this element.</Text> : null}
                </Stack>
              </>
            ) : (
              <Alert variant="light" color="gray">
                Hover the screen to see its elements; click one to see its attributes and the selectors that find it.
              </Alert>
            )}
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label="Screen name"
                placeholder="Feed, Profile, Post composer..."
                value={screenName}
                onChange={(event) => setScreenName(event.currentTarget.value)}
                maxLength={100}
                style={{ flex: 1, minWidth: 0 }}
              />
              <Button leftSection={save.isPending ? <Loader size={14} /> : <IconDeviceFloppy size={16} />} onClick={saveCapture} disabled={save.isPending}>
                Save capture
              </Button>
            </Group>
          </Stack>
        </Group>
      </Stack>
    </Modal>
  );
}
