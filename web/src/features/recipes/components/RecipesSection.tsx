import { Alert, Badge, Button, Card, FileButton, Group, List, Paper, Stack, Switch, Text, Textarea, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import type { WorkspaceRecipe } from '@farm/contracts';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../../shared/api';
import { errorToast, toast } from '../../../shared/toast';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { fetchRecipeDocument, useAddRecipe, useRecipes, useRemoveRecipe, useSetRecipeEnabled, useSetRecipeSettings } from '../recipes.api';
import { PausedRecipesBanner } from './PausedRecipesBanner';
import { ShippedEvidenceModal } from './ShippedEvidenceModal';
import { DryRunButton } from '../dryrun/DryRunButton';

/** Where a server refusal names problems inside the document ("recipe.steps.3.tap"), as lines to show. */
function problemsOf(error: unknown): string[] {
  if (!(error instanceof ApiError)) return [];
  try {
    const details = (JSON.parse(error.body) as { details?: { field: string; message: string }[] }).details ?? [];
    return details.map((item) => `${item.field.replace(/^recipe\.?/, '') || 'the document'}: ${item.message}`);
  } catch {
    return [];
  }
}

/** Saves a recipe document as a .json file, to edit and check on the farm's own phones. */
async function download(from: { shipped: string } | { id: string }, name: string): Promise<void> {
  try {
    const { body } = await fetchRecipeDocument(from);
    const url = URL.createObjectURL(new Blob([`${JSON.stringify(body, null, 2)}\n`], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${name}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (error) {
    errorToast('Error', refusalMessage(error, 'Failed to download the recipe'));
  }
}

const versions = (recipe: { writtenFor: string; minVersion: string | null; belowVersion: string | null }) =>
  [`written for ${recipe.writtenFor}`, recipe.minVersion ? `from ${recipe.minVersion}` : null, recipe.belowVersion ? `below ${recipe.belowVersion}` : null]
    .filter(Boolean)
    .join(', ');

/**
 * Campaigns → Recipes (operators): the shipped step recipes are templates; the workspace adds the ones it checked on its own
 * phones and app versions, and phones get those first for the routine, platform and app version they serve.
 */
export function RecipesSection() {
  const recipes = useRecipes(true);
  const add = useAddRecipe();
  const setEnabled = useSetRecipeEnabled();
  const remove = useRemoveRecipe();
  const settings = useSetRecipeSettings();
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<{ message: string; lines: string[] } | null>(null);
  const [removing, setRemoving] = useState<WorkspaceRecipe | null>(null);
  const [evidenceOf, setEvidenceOf] = useState<{ recipeId: string; name: string } | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      setProblems({ message: 'The recipe is not valid JSON', lines: [] });
      return;
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document)) {
      setProblems({ message: 'A recipe is one JSON object', lines: [] });
      return;
    }
    add.mutate(document as Record<string, unknown>, {
      onSuccess: (created) => {
        setProblems(null);
        setText('');
        toast('Recipe Added', `${created.name} (${created.recipeId} v${created.version}) goes to phones from the next task.`);
      },
      onError: (error) => setProblems({ message: refusalMessage(error, 'Failed to add the recipe'), lines: problemsOf(error).slice(1) }),
    });
  };

  const load = async (file: File | null) => {
    if (file) setText(await file.text());
  };

  const toggle = (recipe: WorkspaceRecipe, enabled: boolean) =>
    setEnabled.mutate({ id: recipe.id, enabled }, { onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update the recipe')) });

  const confirmRemove = () => {
    if (!removing) return;
    remove.mutate(removing.id, {
      onSuccess: () => {
        toast('Recipe Removed', `${removing.name} is no longer sent to phones.`);
        setRemoving(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to remove the recipe')),
    });
  };

  const setTryUntested = (on: boolean) =>
    settings.mutate(
      { tryUntestedTemplates: on },
      {
        onSuccess: () =>
          toast(
            'Settings Saved',
            on ? 'Shipped templates may now run on app versions no one verified.' : 'Shipped templates run only on tested or verified app versions.',
          ),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to save the setting')),
      },
    );

  const own = recipes.data?.recipes ?? [];
  const shipped = recipes.data?.shipped ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="recipes-title">
      <Title order={2} fz="lg" mb={4} id="recipes-title">
        Recipes
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Routines and posts run on the phones as step recipes. The shipped ones are templates: download one, check it on your own phones and app version, raise
        its version, and add it here. Your recipes go to phones before the shipped ones for the routine, platform and app version they name.
      </Text>

      <PausedRecipesBanner enabled />

      {recipes.isPending ? (
        <LoadingState label="Loading recipes..." />
      ) : (
        <>
          <Switch
            mb="md"
            label="Try shipped templates on app versions no one verified"
            description="Off: a template refuses the work on an app version outside its tested range, or where it relies on what no public source shows (see Evidence), unless this workspace verified it there (App version not tested)."
            checked={recipes.data?.settings.tryUntestedTemplates ?? false}
            disabled={settings.isPending}
            onChange={(event) => setTryUntested(event.currentTarget.checked)}
          />
          <Title order={3} fz="md" mb="sm">
            This workspace&apos;s recipes
          </Title>
          {own.length === 0 ? (
            <EmptyText>No recipes of your own yet: phones run the shipped ones</EmptyText>
          ) : (
            <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
              {own.map((recipe) => (
                <Paper key={recipe.id} withBorder p="sm" radius="md" component="li" aria-label={`${recipe.name} v${recipe.version}`}>
                  <Group justify="space-between" wrap="wrap" gap="sm">
                    <div style={{ minWidth: 0 }}>
                      <Group gap="xs">
                        <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                          {recipe.name}
                        </Text>
                        <Badge variant="light" color={recipe.verified ? 'green' : 'yellow'}>
                          {recipe.verified ? 'Checked' : 'Not checked'}
                        </Badge>
                      </Group>
                      <Text
                        size="xs"
                        c="dimmed"
                      >{`${recipe.recipeId} v${recipe.version} · ${recipe.platform} · ${recipe.routines.join(', ')} · ${versions(recipe)}`}</Text>
                      {recipe.invalid ? (
                        <Text
                          size="xs"
                          c="red"
                          role="alert"
                        >{`Turned off: this version of the console refuses it at ${recipe.invalid.field}: ${recipe.invalid.reason}. Mend it and add it again.`}</Text>
                      ) : null}
                    </div>
                    <Group gap="sm">
                      <Switch
                        label="Sent to phones"
                        checked={recipe.enabled}
                        disabled={recipe.invalid !== null && !recipe.enabled}
                        onChange={(event) => toggle(recipe, event.currentTarget.checked)}
                      />
                      <Button size="xs" variant="light" component={Link} to={`/recipes/${recipe.id}`} aria-label={`Edit ${recipe.name} v${recipe.version}`}>
                        Edit
                      </Button>
                      <DryRunButton recipeId={recipe.id} recipeName={`${recipe.name} v${recipe.version}`} />
                      <Button size="xs" variant="default" onClick={() => void download({ id: recipe.id }, `${recipe.recipeId}.v${recipe.version}`)}>
                        Download
                      </Button>
                      <Button size="xs" variant="light" color="red" onClick={() => setRemoving(recipe)}>
                        Remove
                      </Button>
                    </Group>
                  </Group>
                </Paper>
              ))}
            </Stack>
          )}

          <Title order={3} fz="md" mt="lg" mb="sm">
            Add a recipe
          </Title>
          <form onSubmit={submit}>
            <Stack gap="sm">
              <Textarea
                label="Recipe (JSON)"
                placeholder='{ "id": "instagram.post", "version": 2, ... }'
                autosize
                minRows={4}
                maxRows={16}
                value={text}
                onChange={(event) => setText(event.currentTarget.value)}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
              />
              {problems ? (
                <Alert color="red" variant="light" title={problems.message} role="alert">
                  {problems.lines.length > 0 ? (
                    <List size="sm">
                      {problems.lines.map((line) => (
                        <List.Item key={line}>{line}</List.Item>
                      ))}
                    </List>
                  ) : null}
                </Alert>
              ) : null}
              <Group gap="sm">
                <FileButton onChange={(file) => void load(file)} accept="application/json,.json">
                  {(props) => (
                    <Button variant="default" {...props}>
                      Load File
                    </Button>
                  )}
                </FileButton>
                <Button type="submit" loading={add.isPending} disabled={text.trim().length === 0}>
                  Add Recipe
                </Button>
              </Group>
            </Stack>
          </form>

          <Title order={3} fz="md" mt="lg" mb="sm">
            Shipped templates
          </Title>
          <Stack gap={6} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
            {shipped.map((recipe) => (
              <Group
                key={`${recipe.recipeId}.${recipe.version}`}
                component="li"
                justify="space-between"
                wrap="nowrap"
                gap="xs"
                aria-label={`${recipe.name} template`}
              >
                <Text size="sm" style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
                  {recipe.name}{' '}
                  <Text span size="xs" c="dimmed">{`${recipe.recipeId} v${recipe.version} · ${recipe.routines.join(', ')} · ${versions(recipe)}`}</Text>
                </Text>
                <Button size="xs" variant="subtle" onClick={() => setEvidenceOf({ recipeId: recipe.recipeId, name: recipe.name })}>
                  Evidence
                </Button>
                <Button size="xs" variant="subtle" onClick={() => void download({ shipped: recipe.recipeId }, `${recipe.recipeId}.v${recipe.version}`)}>
                  Download
                </Button>
              </Group>
            ))}
          </Stack>
        </>
      )}
      <ShippedEvidenceModal recipeId={evidenceOf?.recipeId ?? null} name={evidenceOf?.name ?? ''} onClose={() => setEvidenceOf(null)} />
      <ConfirmModal
        opened={removing !== null}
        title="Remove recipe?"
        message={removing ? `${removing.name} (${removing.recipeId} v${removing.version}) will no longer be sent to phones.` : ''}
        confirmLabel="Remove Recipe"
        loading={remove.isPending}
        onConfirm={confirmRemove}
        onClose={() => setRemoving(null)}
      />
    </Card>
  );
}
