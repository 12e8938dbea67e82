import { Card, Paper, Stack, Text, Title } from '@mantine/core';
import type { LanguageHeldPhone } from '@farm/contracts';
import { refusalMessage } from '../../../shared/refusal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useLanguageHeldPhones } from '../recipes.api';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function HeldPhone({ phone }: { phone: LanguageHeldPhone }) {
  return (
    <Paper withBorder p="sm" radius="md" component="li" aria-label={phone.deviceName}>
      <Text fw={600} size="sm">
        {`${phone.deviceName} · ${phone.locale ?? 'language not reported'}`}
      </Text>
      <Text size="xs" c="dimmed">
        {`${phone.recipeName} on ${phone.appPackage} ${phone.appVersion} · reads ${phone.covered.length > 0 ? phone.covered.join(', ') : 'an unknown language'} · held back ${when(phone.at)}`}
      </Text>
      <Text size="sm" mt={4}>
        {phone.whatToDo}
      </Text>
    </Paper>
  );
}

/**
 * Campaigns → Recipes → Phones held back by their language (operators): the phones whose latest run of an app in the
 * last week ended `language_untested` (the app shows a language no recipe for it reads, so the run stopped before it
 * acted), each with what to do. Shown beside the recipes and their health, where an operator sets a recipe's languages
 * and starts the dry run that verifies one.
 */
export function LanguageHeldSection() {
  const held = useLanguageHeldPhones(true);
  const phones = held.data?.phones ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="language-held-title">
      <Title order={2} fz="lg" id="language-held-title" mb={4}>
        Phones held back by their language
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        A recipe reads the app's words in the language it is written for; on a phone showing another, its runs stop before they act.
        {held.data ? ` Runs of the last ${held.data.days} days.` : ''}
      </Text>
      {held.isPending ? (
        <LoadingState label="Loading phones held back by their language..." />
      ) : held.isError ? (
        <Text c="red" size="sm" role="alert">
          {refusalMessage(held.error, 'Failed to load the phones held back by their language')}
        </Text>
      ) : phones.length === 0 ? (
        <EmptyText>No phone is held back by its language</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Phones held back by their language">
          {phones.map((phone) => (
            <HeldPhone key={`${phone.deviceId} ${phone.appPackage}`} phone={phone} />
          ))}
        </Stack>
      )}
    </Card>
  );
}
