import { Button, Card, Group, NumberInput, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { platformDailyCaps, updateCampaignBody, type Campaign, type DailyCaps } from '@farm/contracts';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { useCampaignSessions, useUpdateCampaign } from '../campaigns.api';

const capKinds = ['likes', 'follows', 'comments', 'posts'] as const;
const capLabels: Record<(typeof capKinds)[number], string> = { likes: 'Likes', follows: 'Follows', comments: 'Comments', posts: 'Posts' };

interface Draft {
  activeHoursStart: number | string;
  activeHoursEnd: number | string;
  cooldownMinutes: number | string;
  caps: Record<(typeof capKinds)[number], number | string>;
}

const draftOf = (campaign: Campaign): Draft => ({
  activeHoursStart: campaign.activeHoursStart,
  activeHoursEnd: campaign.activeHoursEnd,
  cooldownMinutes: campaign.cooldownMinutes,
  caps: {
    likes: campaign.dailyCaps.likes ?? '',
    follows: campaign.dailyCaps.follows ?? '',
    comments: campaign.dailyCaps.comments ?? '',
    posts: campaign.dailyCaps.posts ?? '',
  },
});

/** When the campaign works and how hard each account may go: its active hours, cooldown and daily caps, and today so far. */
export function CampaignScheduleCard({ campaign, canManage }: { campaign: Campaign; canManage: boolean }) {
  const update = useUpdateCampaign();
  const sessions = useCampaignSessions(campaign.id);
  const [draft, setDraft] = useState<Draft>(() => draftOf(campaign));
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => setDraft(draftOf(campaign)), [campaign]);

  const today = new Date().toISOString().slice(0, 10);
  const { done, next } = useMemo(() => {
    const runs = sessions.data ?? [];
    const todays = runs.filter((run) => run.planDay === today);
    const upcoming = runs.filter((run) => run.status === 'pending' && run.scheduledAt).sort((a, b) => a.scheduledAt!.localeCompare(b.scheduledAt!))[0];
    return { done: todays.reduce((sum, run) => sum + run.engagementActions, 0), next: upcoming?.scheduledAt ?? null };
  }, [sessions.data, today]);
  const defaults = platformDailyCaps[campaign.platform] ?? platformDailyCaps.default;

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const caps: DailyCaps = {};
    for (const kind of capKinds) if (draft.caps[kind] !== '') caps[kind] = Number(draft.caps[kind]);
    const parsed = updateCampaignBody.safeParse({
      activeHoursStart: Number(draft.activeHoursStart),
      activeHoursEnd: Number(draft.activeHoursEnd),
      cooldownMinutes: Number(draft.cooldownMinutes),
      dailyCaps: caps,
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [issue.path.join('.'), issue.message])));
      return;
    }
    setErrors({});
    update.mutate(
      { id: campaign.id, body: parsed.data },
      {
        onSuccess: () => toast('Campaign Updated', 'Its schedule and limits have been saved.'),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update campaign. Please try again.')),
      },
    );
  };

  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={save} aria-label="Schedule and safety">
        <Stack gap="md">
          <Title order={2} fz="lg">
            Schedule &amp; Safety
          </Title>
          <Stack gap={4}>
            <Group justify="space-between" gap="xs">
              <Text size="sm">Engagement today</Text>
              <Text size="sm" fw={600}>{`${done} of ${campaign.engagementTarget}`}</Text>
            </Group>
            <Progress value={Math.min(100, (done / Math.max(1, campaign.engagementTarget)) * 100)} aria-label="Engagement today" />
            <Text size="xs" c="dimmed">
              {campaign.status !== 'active'
                ? 'Runs only while the campaign is active.'
                : next
                  ? `Next run: ${formatDateTime(next)}`
                  : 'No more runs planned today.'}
            </Text>
          </Stack>
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <NumberInput
              label="Active from (hour)"
              min={0}
              max={23}
              value={draft.activeHoursStart}
              disabled={!canManage}
              error={errors.activeHoursStart}
              onChange={(value) => setDraft({ ...draft, activeHoursStart: value })}
            />
            <NumberInput
              label="Active until (hour)"
              min={1}
              max={24}
              value={draft.activeHoursEnd}
              disabled={!canManage}
              error={errors.activeHoursEnd}
              onChange={(value) => setDraft({ ...draft, activeHoursEnd: value })}
            />
            <NumberInput
              label="Cooldown (minutes)"
              min={0}
              max={1440}
              value={draft.cooldownMinutes}
              disabled={!canManage}
              error={errors.cooldownMinutes}
              onChange={(value) => setDraft({ ...draft, cooldownMinutes: value })}
            />
          </SimpleGrid>
          <Text size="sm" fw={500}>
            Daily caps per account
          </Text>
          <SimpleGrid cols={{ base: 2, xs: 4 }} spacing="sm">
            {capKinds.map((kind) => (
              <NumberInput
                key={kind}
                label={capLabels[kind]}
                min={0}
                max={100000}
                placeholder={`${defaults[kind]} (default)`}
                value={draft.caps[kind]}
                disabled={!canManage}
                error={errors[`dailyCaps.${kind}`]}
                onChange={(value) => setDraft({ ...draft, caps: { ...draft.caps, [kind]: value } })}
              />
            ))}
          </SimpleGrid>
          {canManage ? (
            <Group justify="flex-end">
              <Button type="submit" loading={update.isPending}>
                Save Schedule
              </Button>
            </Group>
          ) : null}
        </Stack>
      </form>
    </Card>
  );
}
