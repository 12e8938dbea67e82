/**
 * Record, beside a phone the person controls: while on, each input goes to the phone with `record` and comes back with
 * the element under the finger; the steps it makes are listed with the screen they were made on. A typed text may be
 * swapped for a parameter. Stop offers to save the steps as a draft recipe for a platform and routine.
 */
import { Anchor, Badge, Button, Group, Image, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconPlayerRecordFilled, IconPlayerStopFilled } from '@tabler/icons-react';
import type { RecordedTarget } from '@farm/agent-protocol/inspect';
import type { LiveInput } from '@farm/agent-protocol/live';
import { routineTypes } from '@farm/agent-protocol/routines';
import type { LiveAnswer, LiveInputAnswer } from '@farm/contracts';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorToast, toast } from '../../../shared/toast';
import { useSaveDraft } from './inspect.api';
import { draftRecipe, draftStepShots, platformOf, stepsFor, textParameters, type RecordedEntry } from './recorder';

type Recorder = (input: LiveInput, answer: LiveAnswer<LiveInputAnswer>, sentAt: number) => void;

export interface RecordPanelProps {
  setRecorder: (recorder: Recorder | null) => void;
  /** A small picture of the screen as it is now, kept with each step. */
  snapshot: () => string | null;
}

export function RecordPanel({ setRecorder, snapshot }: RecordPanelProps) {
  const [recording, setRecording] = useState(false);
  const [entries, setEntries] = useState<RecordedEntry[]>([]);
  const [targets, setTargets] = useState<RecordedTarget[]>([]);
  const [stopped, setStopped] = useState(false);
  const [name, setName] = useState('');
  const [platform, setPlatform] = useState<string | null>(null);
  const [routine, setRoutine] = useState<string | null>('warmup');
  const lastRef = useRef<number | null>(null);
  const save = useSaveDraft();
  /** The draft just saved: open it in the recipe editor to add waits, guards, counts and checks (a VA saves drafts only). */
  const [savedDraft, setSavedDraft] = useState<{ id: string; name: string } | null>(null);

  useEffect(() => () => setRecorder(null), [setRecorder]);

  const start = () => {
    setSavedDraft(null);
    setEntries([]);
    setTargets([]);
    setStopped(false);
    lastRef.current = null;
    setRecording(true);
    setRecorder((input, answer, sentAt) => {
      if (!answer.ok) return;
      const waited = lastRef.current === null ? 0 : sentAt - lastRef.current;
      lastRef.current = sentAt;
      const recorded = answer.recorded;
      if (recorded) setTargets((current) => [...current, recorded]);
      const shot = snapshot();
      setEntries((current) => [...current, ...stepsFor(input, recorded, waited).map((entry) => ({ ...entry, screenshot: shot }))]);
    });
  };

  const stop = () => {
    setRecorder(null);
    setRecording(false);
    setStopped(true);
    setPlatform((current) => current ?? targets.map((target) => platformOf(target.package)).find((value) => value !== null) ?? 'instagram');
  };

  const setText = (index: number, text: string) =>
    setEntries((current) => current.map((entry, at) => (at === index ? { ...entry, step: { ...entry.step, text }, summary: `Type ${text}` } : entry)));

  const saveDraft = () => {
    if (!name.trim()) {
      errorToast('Error', 'Name is required');
      return;
    }
    if (entries.length === 0) {
      errorToast('Error', 'Nothing was recorded: take control, press Record and use the phone');
      return;
    }
    const chosen = (platform ?? 'instagram') as 'instagram' | 'tiktok';
    const recipe = draftRecipe(entries, {
      name,
      platform: chosen,
      routine: routine ?? 'warmup',
      recorded: targets,
    });
    // Each step keeps the picture of the screen it was made on, shown beside it in the editor.
    save.mutate(
      { recipe, stepShots: draftStepShots(entries, chosen) },
      {
        onSuccess: (created) => {
          setSavedDraft({ id: created.id, name: name.trim() });
          toast('Draft saved', `"${name.trim()}" is in Campaigns → Recipes, turned off until an operator turns it on.`);
          setStopped(false);
          setEntries([]);
        },
        onError: (error) => errorToast('Error', error instanceof Error ? error.message : 'The draft could not be saved'),
      },
    );
  };

  return (
    <Stack gap="xs">
      {recording ? (
        <Button color="red" variant="light" leftSection={<IconPlayerStopFilled size={14} />} onClick={stop}>
          Stop recording
        </Button>
      ) : (
        <Button variant="default" leftSection={<IconPlayerRecordFilled size={14} color="var(--mantine-color-red-6)" />} onClick={start}>
          Record
        </Button>
      )}
      {recording || stopped ? (
        <Stack gap={6} aria-label="Recorded steps">
          <Group gap="xs">
            {recording ? <Badge color="red">Recording</Badge> : <Badge color="gray">Stopped</Badge>}
            <Text size="xs" c="dimmed">{`${entries.length} step${entries.length === 1 ? '' : 's'}`}</Text>
          </Group>
          {entries.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: steps are only ever appended, in order
            <Group key={index} gap={6} wrap="nowrap" align="flex-start">
              {entry.screenshot ? <Image src={entry.screenshot} alt="" w={36} h={64} fit="contain" radius="xs" /> : null}
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Text size="xs" style={{ wordBreak: 'break-word' }}>
                  {`${index + 1}. ${entry.summary}`}
                </Text>
                {entry.positional ? (
                  <Badge size="xs" color="orange">
                    Positional
                  </Badge>
                ) : null}
                {entry.step.do === 'type' ? (
                  <Select
                    size="xs"
                    aria-label={`Text of step ${index + 1}`}
                    data={[...new Set([String(entry.step.text), ...textParameters])]}
                    value={String(entry.step.text)}
                    onChange={(value) => value && setText(index, value)}
                    allowDeselect={false}
                  />
                ) : null}
              </Stack>
            </Group>
          ))}
        </Stack>
      ) : null}
      {stopped && entries.length > 0 ? (
        <Stack gap={6}>
          <TextInput
            size="xs"
            label="Draft name"
            placeholder="Like the first post"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            maxLength={120}
          />
          <Select size="xs" label="Platform" data={['instagram', 'tiktok']} value={platform} onChange={setPlatform} allowDeselect={false} />
          <Select size="xs" label="Routine" data={[...routineTypes]} value={routine} onChange={setRoutine} allowDeselect={false} searchable />
          <Button size="xs" onClick={saveDraft} loading={save.isPending}>
            Save draft
          </Button>
        </Stack>
      ) : null}
      {savedDraft && !recording ? (
        <Anchor component={Link} to={`/recipes/${savedDraft.id}`} size="xs">
          {`Open "${savedDraft.name}" in the recipe editor`}
        </Anchor>
      ) : null}
    </Stack>
  );
}
