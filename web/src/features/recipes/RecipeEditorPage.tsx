import { Alert, Anchor, Badge, Button, Group, Menu, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconChevronDown } from '@tabler/icons-react';
import { recipe as recipeSchema } from '@farm/agent-protocol/recipe-schema';
import type { RecipeVersion } from '@farm/contracts';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { refusalMessage } from '../../shared/refusal';
import { errorToast, toast } from '../../shared/toast';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { FormModal } from '../../shared/ui/FormModal';
import { LoadingState } from '../../shared/ui/LoadingState';
import { useCurrentUser } from '../auth/auth.api';
import { AddStepModal } from './components/AddStepModal';
import { DiffView } from './components/DiffView';
import { JsonPane, type JsonProblem } from './components/JsonPane';
import { StepList, type AddKind } from './components/StepList';
import { VersionsDrawer } from './components/VersionsDrawer';
import { lineOf, locateJson } from './recipe.lines';
import { buildStep, deleteStep, insertStep, moveStep, pretty, setCounts, stepsOf, type Json, type NewStep } from './recipe.steps';
import { useRecipe, useRecipeDiff, useRecipeVersions, useRestoreVersion, useSaveVersion, type RecipeDetail } from './recipes.api';
import { DryRunButton } from './dryrun/DryRunButton';
import { picturesOfSteps, stepFingerprint } from '@farm/contracts';

const MAX_PROBLEMS = 20;

/** The document's problems: its JSON syntax error, or the recipe schema's issues, each at its line. */
export function problemsOf(text: string): { document: Json | null; problems: JsonProblem[] } {
  const located = locateJson(text);
  if (!located.ok) return { document: null, problems: [{ line: located.error.line, path: '', message: located.error.message }] };
  const document = typeof located.value === 'object' && located.value !== null && !Array.isArray(located.value) ? (located.value as Json) : null;
  if (!document) return { document: null, problems: [{ line: 1, path: '', message: 'A recipe is one JSON object, in { }' }] };
  const parsed = recipeSchema.safeParse(document);
  if (parsed.success) return { document, problems: [] };
  const problems = parsed.error.issues.slice(0, MAX_PROBLEMS).map((issue) => ({
    line: lineOf(located.lines, issue.path as (string | number)[]),
    path: issue.path.map(String).join('.') || 'the document',
    message: issue.message,
  }));
  return { document, problems: problems.sort((a, b) => a.line - b.line) };
}

export interface EditorHeaderProps {
  recipe: RecipeDetail;
  /** Buttons other work adds beside Save (the dry run). */
  actions?: ReactNode;
  children: ReactNode;
}

/** The editor's title row: name, recipe id, version and state, then its buttons and the `actions` slot. */
export function EditorHeader({ recipe, actions, children }: EditorHeaderProps) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="md" mb="md">
      <Stack gap={4} style={{ minWidth: 0 }}>
        <Anchor component={Link} to="/campaigns/recipes" size="sm">
          Campaigns → Recipes
        </Anchor>
        <Title order={1} fz={{ base: 22, sm: 28 }} style={{ overflowWrap: 'anywhere' }}>
          {recipe.name}
        </Title>
        <Group gap="xs" wrap="wrap">
          <Text c="dimmed" ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
            {recipe.recipeId}
          </Text>
          <Badge variant="outline" color="blue">{`v${recipe.version}`}</Badge>
          {recipe.enabled ? (
            <Badge color="green" variant="light">
              Sent to phones
            </Badge>
          ) : (
            <Badge color="gray" variant="light">
              Off (draft)
            </Badge>
          )}
        </Group>
      </Stack>
      <Group gap="sm" wrap="wrap">
        {children}
        {actions}
      </Group>
    </Group>
  );
}

export interface RecipeEditorPageProps {
  /** The slot for a "Dry run" button in the header. */
  actions?: ReactNode;
}

/**
 * The recipe editor: the steps as a list on the left and the raw JSON on the right, one document; every save is a
 * new version, compared against any earlier one or the shipped template, and restored in one click (operators).
 */
export function RecipeEditorPage({ actions }: RecipeEditorPageProps = {}) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const recipe = useRecipe(id);
  const versions = useRecipeVersions(id);
  const save = useSaveVersion(id);
  const restore = useRestoreVersion();
  const [text, setText] = useState('');
  const [adding, setAdding] = useState<{ kind: AddKind; after: number } | null>(null);
  const [saving, setSaving] = useState(false);
  const [note, setNote] = useState('');
  const [showVersions, setShowVersions] = useState(false);
  const [against, setAgainst] = useState<{ id: string; label: string } | null>(null);
  const [restoring, setRestoring] = useState<RecipeVersion | null>(null);
  const diff = useRecipeDiff(id, against?.id ?? null);

  const saved = useMemo(() => (recipe.data ? pretty(recipe.data.body) : ''), [recipe.data]);
  useEffect(() => {
    setText(saved);
  }, [saved]);

  const { document, problems } = useMemo(() => problemsOf(text), [text]);
  const steps = document ? stepsOf(document) : null;
  // Recorded steps' pictures follow their steps through the edit (moved, given a count), by what each step does.
  const pictures = useMemo(() => {
    const shots = recipe.data?.stepShots;
    if (!shots || !steps) return [];
    const saved = Array.isArray(recipe.data?.body.steps) ? (recipe.data.body.steps as unknown[]) : [];
    const known = saved.flatMap((step, at) => (shots[at] ? [{ fingerprint: stepFingerprint(step), image: shots[at] }] : []));
    return picturesOfSteps(steps, known);
  }, [recipe.data, steps]);
  const changed = text !== saved;
  const edit = (change: (document: Json) => Json) => {
    if (document) setText(pretty(change(document)));
  };

  if (recipe.isPending) return <LoadingState label="Loading recipe..." />;
  if (!recipe.data)
    return (
      <Alert color="red" title="This recipe could not be opened" role="alert">
        {refusalMessage(recipe.error, 'It may have been removed.')}{' '}
        <Anchor component={Link} to="/campaigns/recipes">
          Back to Recipes
        </Anchor>
      </Alert>
    );
  const current = recipe.data;
  const others = (versions.data?.versions ?? []).filter((item) => item.id !== current.id);

  const add = (step: NewStep) => {
    if (!adding) return;
    edit((doc) => insertStep(doc, adding.after, buildStep(step)));
    setAdding(null);
  };

  const submitSave = () => {
    if (!document) return;
    save.mutate(
      { recipe: document, ...(note.trim() ? { note: note.trim() } : {}) },
      {
        onSuccess: (created) => {
          toast('Version Saved', `${created.name} is saved as v${created.version}.`);
          setSaving(false);
          setNote('');
          void navigate(`/recipes/${created.id}`);
        },
        onError: (error) => errorToast('Not saved', refusalMessage(error, 'The version could not be saved')),
      },
    );
  };

  const confirmRestore = () => {
    if (!restoring) return;
    restore.mutate(restoring.id, {
      onSuccess: (created) => {
        toast('Version Restored', `v${restoring.version} is restored as v${created.version}.`);
        setRestoring(null);
        setShowVersions(false);
        void navigate(`/recipes/${created.id}`);
      },
      onError: (error) => errorToast('Not restored', refusalMessage(error, 'The version could not be restored')),
    });
  };

  const compareWith = (target: { id: string; label: string }) => {
    setShowVersions(false);
    setAgainst(target);
  };

  return (
    <Stack gap="md">
      <EditorHeader
        recipe={current}
        actions={
          actions ?? (
            // A dry run runs the version saved on the server: save the edit first to try it.
            <DryRunButton recipeId={current.id} recipeName={`${current.name} v${current.version}`} />
          )
        }
      >
        <Button onClick={() => setSaving(true)} disabled={problems.length > 0 || !changed || !document}>
          Save
        </Button>
        <Button variant="default" onClick={() => setShowVersions(true)}>
          Versions
        </Button>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button variant="default" rightSection={<IconChevronDown size={14} />} disabled={others.length === 0 && !current.basedOn}>
              Compare
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {others.map((item) => (
              <Menu.Item key={item.id} onClick={() => compareWith({ id: item.id, label: `v${item.version}` })}>{`With v${item.version}`}</Menu.Item>
            ))}
            {current.basedOn ? (
              <Menu.Item onClick={() => compareWith({ id: 'shipped', label: 'the shipped template' })}>With the shipped template</Menu.Item>
            ) : null}
          </Menu.Dropdown>
        </Menu>
      </EditorHeader>

      <Text size="sm" c="dimmed">
        Saving adds a new version. It is sent to phones if this one is, and the older versions are turned off: phones get one version of a recipe at a time.
        {changed ? ' You have changes that are not saved.' : ''}
      </Text>
      {current.invalid ? (
        <Alert color="red" variant="light" role="alert" title="This version fails the schema">
          {`At ${current.invalid.field}: ${current.invalid.reason}. Mend it here and save a new version.`}
        </Alert>
      ) : null}

      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <StepList
          steps={steps}
          onAdd={(after, kind) => setAdding({ after, kind })}
          onMove={(index, by) => edit((doc) => moveStep(doc, index, by))}
          onDelete={(index) => edit((doc) => deleteStep(doc, index))}
          onCounts={(index, counts) => edit((doc) => setCounts(doc, index, counts))}
          pictures={pictures}
        />
        <JsonPane text={text} onChange={setText} problems={problems} />
      </SimpleGrid>

      <AddStepModal adding={adding} onAdd={add} onClose={() => setAdding(null)} />

      <FormModal opened={saving} onClose={() => setSaving(false)} title={`Save ${current.recipeId} as a new version`}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submitSave();
          }}
        >
          <Stack gap="sm">
            <Textarea
              label="What changed (optional)"
              description="At most 200 characters, shown in the versions list"
              maxLength={200}
              autosize
              minRows={2}
              value={note}
              onChange={(event) => setNote(event.currentTarget.value)}
              data-autofocus
            />
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={() => setSaving(false)} disabled={save.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                Save Version
              </Button>
            </Group>
          </Stack>
        </form>
      </FormModal>

      <VersionsDrawer
        opened={showVersions}
        onClose={() => setShowVersions(false)}
        versions={versions.data?.versions}
        currentId={current.id}
        canRestore={isOperator}
        onOpen={(version) => {
          setShowVersions(false);
          void navigate(`/recipes/${version.id}`);
        }}
        onCompare={(version) => compareWith({ id: version.id, label: `v${version.version}` })}
        onRestore={setRestoring}
      />

      <FormModal opened={against !== null} onClose={() => setAgainst(null)} title={`Compare v${current.version} with ${against?.label ?? ''}`} size="xl">
        {diff.isPending ? (
          <LoadingState label="Comparing..." />
        ) : diff.data ? (
          <DiffView diff={diff.data} />
        ) : (
          <Alert color="red" role="alert">
            {refusalMessage(diff.error, 'The versions could not be compared')}
          </Alert>
        )}
      </FormModal>

      <ConfirmModal
        opened={restoring !== null}
        title={`Restore v${restoring?.version ?? ''}?`}
        message={
          restoring
            ? `v${restoring.version} is saved again as the newest version${others.some((item) => item.enabled) || current.enabled ? ', sent to phones in place of the version on now' : ''}. The versions in between are kept.`
            : ''
        }
        confirmLabel="Restore"
        loading={restore.isPending}
        onConfirm={confirmRestore}
        onClose={() => setRestoring(null)}
      />
    </Stack>
  );
}
