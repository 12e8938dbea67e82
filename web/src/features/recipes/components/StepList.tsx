import { ActionIcon, Badge, Button, Group, Image, Menu, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { canCount, describeStep, describeTarget, engagementActions, targetOf, type EngagementAction, type Json } from '../recipe.steps';

export type AddKind = 'wait_for' | 'expect' | 'when' | 'pause';

export const addKinds: { kind: AddKind; label: string }[] = [
  { kind: 'wait_for', label: 'Wait for' },
  { kind: 'expect', label: 'Check' },
  { kind: 'when', label: 'Guard' },
  { kind: 'pause', label: 'Pause' },
];

const countOptions = [{ value: '', label: 'Counts nothing' }, ...engagementActions.map((action) => ({ value: action, label: `Counts a ${action}` }))];

export interface StepListProps {
  /** The document's top-level steps; null while the JSON cannot be read. */
  steps: Json[] | null;
  onAdd: (after: number, kind: AddKind) => void;
  onMove: (index: number, by: -1 | 1) => void;
  onDelete: (index: number) => void;
  onCounts: (index: number, counts: EngagementAction | null) => void;
  /** Each step's recorded screenshot (a `data:` URL), where it was recorded. */
  pictures?: readonly (string | null)[];
}

/** The recipe's steps as a list: what each does and looks for, with buttons that edit the same document as the JSON. */
export function StepList({ steps, onAdd, onMove, onDelete, onCounts, pictures = [] }: StepListProps) {
  return (
    <Stack gap="xs" component="section" aria-labelledby="recipe-steps-title" style={{ minWidth: 0 }}>
      <Title order={2} fz="md" id="recipe-steps-title">
        Steps
      </Title>
      {steps === null ? (
        <Text size="sm" c="dimmed">
          Mend the JSON to edit the steps here: the list shows the document once it reads as JSON with a list of steps.
        </Text>
      ) : (
        <Stack gap="xs" component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
          {steps.map((step, index) => {
            const number = index + 1;
            const target = describeTarget(targetOf(step));
            const inner = Array.isArray(step.steps) ? step.steps.length : 0;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: steps have no identity but their place in the document
              <Paper key={index} component="li" withBorder p="xs" radius="sm" aria-label={`Step ${number}: ${describeStep(step)}`}>
                <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
                  {pictures[index] ? (
                    <Image src={pictures[index]} alt={`The screen step ${number} was recorded on`} w={36} h={64} fit="contain" radius="xs" />
                  ) : null}
                  <Stack gap={2} style={{ minWidth: 0, flex: '1 1 12rem' }}>
                    <Group gap={6} wrap="wrap">
                      <Text size="sm" fw={700} c="dimmed" aria-hidden>
                        {number}.
                      </Text>
                      <Badge variant="light" color="gray" tt="none">
                        {typeof step.do === 'string' ? step.do : '?'}
                      </Badge>
                      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                        {describeStep(step)}
                      </Text>
                      {typeof step.counts === 'string' ? <Badge variant="light" color="grape">{`Counts a ${step.counts}`}</Badge> : null}
                    </Group>
                    {target ? (
                      <Group gap={6} wrap="wrap">
                        <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                          {target.text}
                        </Text>
                        {target.positional ? (
                          <Badge size="xs" variant="light" color="orange">
                            Positional
                          </Badge>
                        ) : null}
                      </Group>
                    ) : null}
                    {inner > 0 ? <Text size="xs" c="dimmed">{`${inner} ${inner === 1 ? 'step' : 'steps'} inside (edit them in the JSON)`}</Text> : null}
                  </Stack>
                  <Group gap={4} wrap="wrap">
                    {canCount(step) ? (
                      <Select
                        size="xs"
                        w={150}
                        aria-label={`What step ${number} counts`}
                        data={countOptions}
                        value={typeof step.counts === 'string' ? step.counts : ''}
                        allowDeselect={false}
                        onChange={(value) => onCounts(index, value ? (value as EngagementAction) : null)}
                      />
                    ) : null}
                    <ActionIcon variant="subtle" color="gray" aria-label={`Move step ${number} up`} disabled={index === 0} onClick={() => onMove(index, -1)}>
                      <IconArrowUp size={16} />
                    </ActionIcon>
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`Move step ${number} down`}
                      disabled={index === steps.length - 1}
                      onClick={() => onMove(index, 1)}
                    >
                      <IconArrowDown size={16} />
                    </ActionIcon>
                    <ActionIcon variant="subtle" color="red" aria-label={`Delete step ${number}`} onClick={() => onDelete(index)}>
                      <IconTrash size={16} />
                    </ActionIcon>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <Button size="compact-xs" variant="light" leftSection={<IconPlus size={12} />} aria-label={`Add a step after step ${number}`}>
                          Add
                        </Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        {addKinds.map((item) => (
                          <Menu.Item key={item.kind} onClick={() => onAdd(index, item.kind)}>
                            {item.label}
                          </Menu.Item>
                        ))}
                      </Menu.Dropdown>
                    </Menu>
                  </Group>
                </Group>
              </Paper>
            );
          })}
        </Stack>
      )}
    </Stack>
  );
}
