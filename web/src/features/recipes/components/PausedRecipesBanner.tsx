import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { RecipeBreaker } from '@farm/contracts';
import { refusalMessage } from '../../../shared/refusal';
import { errorToast, toast } from '../../../shared/toast';
import { useRecipes, useResumeRecipe, useSendPausedWorkToVAs } from '../recipes.api';

function what(breaker: RecipeBreaker): string {
  return `${breaker.recipeName} on ${breaker.appPackage} ${breaker.appVersion}`;
}

/**
 * Recipes the breaker paused for an app version (they stopped matching the app on several phones), with what an
 * operator can do: send the waiting work to the phones' VAs by hand, or turn the recipe back on once it is mended.
 * Shown on Tasks and in Campaigns → Recipes; operators only (the list is theirs to read).
 */
export function PausedRecipesBanner({ enabled }: { enabled: boolean }) {
  const recipes = useRecipes(enabled);
  const resume = useResumeRecipe();
  const byHand = useSendPausedWorkToVAs();
  const paused = recipes.data?.breakers ?? [];
  if (!enabled || paused.length === 0) return null;

  const sendByHand = (breaker: RecipeBreaker) =>
    byHand.mutate(breaker.id, {
      onSuccess: ({ tasks }) => toast('Sent to VAs', `${tasks} task${tasks === 1 ? '' : 's'} of ${breaker.recipeName} went to the phones' VAs to do by hand.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to send the work to VAs')),
    });
  const turnOn = (breaker: RecipeBreaker) =>
    resume.mutate(breaker.id, {
      onSuccess: () => toast('Recipe Turned Back On', `${what(breaker)} runs on phones again.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to turn the recipe back on')),
    });

  return (
    <Stack gap="sm" mb="md">
      {paused.map((breaker) => (
        <Alert
          key={breaker.id}
          color="orange"
          variant="light"
          title={`Recipe paused: ${what(breaker)}`}
          role="status"
          aria-label={`Recipe paused: ${what(breaker)}`}
        >
          <Text size="sm" mb="xs">
            {`It no longer matched the app on ${breaker.phones} phones, so its work on phones with this version waits (${breaker.waitingTasks} task${
              breaker.waitingTasks === 1 ? '' : 's'
            }): recipe paused for this app version. Mend the recipe, or have VAs do the work by hand.`}
          </Text>
          <Group gap="sm">
            <Button size="xs" variant="default" loading={byHand.isPending && byHand.variables === breaker.id} onClick={() => sendByHand(breaker)}>
              Send this work to VAs by hand
            </Button>
            <Button size="xs" color="orange" loading={resume.isPending && resume.variables === breaker.id} onClick={() => turnOn(breaker)}>
              Turn it back on
            </Button>
          </Group>
        </Alert>
      ))}
    </Stack>
  );
}
