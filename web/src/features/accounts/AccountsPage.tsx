import { useState } from 'react';
import { Alert, Button, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useAccounts, useCanManageAccounts, useDevices } from './accounts.api';
import { AccountCard } from './components/AccountCard';
import { AddAccountModal } from './components/AddAccountModal';

/** Social Media Accounts (/accounts). */
export function AccountsPage() {
  const accounts = useAccounts();
  const devices = useDevices();
  const canManage = useCanManageAccounts();
  const [adding, setAdding] = useState(false);
  const deviceNames = new Map((devices.data ?? []).map((device) => [device.id, device.name]));

  return (
    <Stack gap={0}>
      <PageHeader
        title="Social Media Accounts"
        subtitle="Manage the accounts your devices run"
        actions={
          canManage && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add Account
            </Button>
          )
        }
      />

      {accounts.isPending ? (
        <LoadingState label="Loading accounts..." />
      ) : accounts.isError ? (
        <Alert color="red" title="Failed to fetch accounts">
          {accounts.error.message}
        </Alert>
      ) : accounts.data.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap={4}>
            <Text fw={600}>No accounts yet</Text>
            {canManage && (
              <Text c="dimmed" size="sm" ta="center">
                Add a social media account and assign it to a device.
              </Text>
            )}
          </Stack>
        </Paper>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {accounts.data.map((account) => (
            <AccountCard
              key={account.id}
              account={account}
              deviceName={(account.deviceId && deviceNames.get(account.deviceId)) || null}
            />
          ))}
        </SimpleGrid>
      )}

      {canManage && <AddAccountModal opened={adding} onClose={() => setAdding(false)} />}
    </Stack>
  );
}
