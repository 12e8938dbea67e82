/** A new workspace's first steps, in order, until they are all done: shown on the dashboard to operators. */
import { Anchor, Card, Group, List, Progress, Text, ThemeIcon, Title, VisuallyHidden } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import type { Onboarding } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

const steps: { key: keyof Onboarding; label: string; hint: string; to: string; action: string }[] = [
  {
    key: 'phoneConnected',
    label: 'Connect your first phone',
    hint: 'Add a device, then choose Connect Phone in its menu and run the agent with the credential.',
    to: '/devices',
    action: 'Go to Devices',
  },
  {
    key: 'vaInvited',
    label: 'Invite a VA',
    hint: 'Send a virtual assistant an invitation link to join this workspace.',
    to: '/vas',
    action: 'Go to Virtual Assistants',
  },
  { key: 'accountAdded', label: 'Add an account', hint: 'Add a social media account and put it on a phone.', to: '/accounts', action: 'Go to Accounts' },
  {
    key: 'campaignCreated',
    label: 'Create a campaign',
    hint: 'Choose a platform, link accounts and add automation routines.',
    to: '/campaigns',
    action: 'Go to Campaigns',
  },
];

export function OnboardingChecklist() {
  const onboarding = useQuery<Onboarding>({ queryKey: ['/api/onboarding'] });
  if (!onboarding.data) return null;
  const done = steps.filter((step) => onboarding.data[step.key]).length;
  if (done === steps.length) return null;
  const next = steps.find((step) => !onboarding.data[step.key]);
  return (
    <Card withBorder padding="lg" radius="md" mb="lg" component="section" aria-labelledby="onboarding-title">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} fz="lg" id="onboarding-title">
          Get your farm running
        </Title>
        <Text size="sm" c="dimmed">
          {done} of {steps.length} done
        </Text>
      </Group>
      <Progress value={(done / steps.length) * 100} mb="md" aria-label={`${done} of ${steps.length} first steps done`} />
      <List spacing="sm" center={false} listStyleType="none" component="ol" p={0}>
        {steps.map((step) => {
          const complete = onboarding.data[step.key];
          return (
            <List.Item
              key={step.key}
              icon={
                <ThemeIcon color={complete ? 'teal' : 'gray'} variant="light" radius="xl" size={24} aria-hidden>
                  {complete ? <IconCircleCheck size={16} /> : <IconCircleDashed size={16} />}
                </ThemeIcon>
              }
            >
              <Text fw={600} td={complete ? 'line-through' : undefined}>
                {step.label}
                {complete ? <VisuallyHidden> (done)</VisuallyHidden> : null}
              </Text>
              {step === next ? (
                <Text size="sm" c="dimmed">
                  {step.hint}{' '}
                  <Anchor component={Link} to={step.to} size="sm" underline="always">
                    {step.action}
                  </Anchor>
                </Text>
              ) : null}
            </List.Item>
          );
        })}
      </List>
    </Card>
  );
}
