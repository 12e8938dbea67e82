import { Avatar, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { accountStatusLabels, type Account } from '@farm/contracts';
import { accountStatusColors, platformColors, platformLabels } from '../accounts.form';

export interface AccountCardProps {
  account: Account;
  /** Null when the account has no device or the device is not known. */
  deviceName: string | null;
}

/** One social account; the whole card opens its detail screen. */
export function AccountCard({ account, deviceName }: AccountCardProps) {
  return (
    <Card withBorder radius="md" padding="lg" component={Link} to={`/accounts/${account.id}`} style={{ color: 'inherit', textDecoration: 'none' }}>
      <Stack gap="sm">
        <Group gap="sm" wrap="nowrap">
          <Avatar src={account.profilePicture} alt="" radius="xl">
            {account.username.slice(0, 2).toUpperCase()}
          </Avatar>
          <Stack gap={0} miw={0}>
            <Text fw={600} truncate>
              @{account.username}
            </Text>
            <Text size="sm" c="dimmed" truncate>
              {deviceName ?? 'Unknown Device'}
            </Text>
          </Stack>
        </Group>
        <Group gap={6}>
          <Badge color={platformColors[account.platform]} variant="light">
            {platformLabels[account.platform]}
          </Badge>
          <Badge color={accountStatusColors[account.status]} variant="dot">
            {accountStatusLabels[account.status]}
          </Badge>
        </Group>
        <Group gap="lg">
          <Text size="sm">
            <b>{account.followers.toLocaleString()}</b> followers
          </Text>
          <Text size="sm">
            <b>{account.following.toLocaleString()}</b> following
          </Text>
        </Group>
        {account.bio && (
          <Text size="sm" c="dimmed" lineClamp={2}>
            {account.bio}
          </Text>
        )}
        {account.status === 'paused' && account.pausedMessage ? (
          <Text size="sm" c="red">
            {`Automation paused: ${account.pausedMessage}`}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
