import { useState } from 'react';
import { ListToolbar, platformFilter } from '../../shared/ui/ListToolbar';
import { Alert, Button, Group, SimpleGrid, Stack } from '@mantine/core';
import { IconFileImport, IconPlus } from '@tabler/icons-react';
import { accountStatusLabels, accountStatusValues, platformValues, type Account } from '@farm/contracts';
import { usePagedList } from '../../shared/paged';
import { useUrlFilters, useUrlSearch } from '../../shared/url-filters';
import { ExportButton } from '../../shared/ui/ExportButton';
import { ImportCsvModal } from '../../shared/ui/ImportCsvModal';
import { LoadMore } from '../../shared/ui/LoadMore';
import { EmptyCard, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCanManageAccounts, useDevices } from './accounts.api';
import { AccountCard } from './components/AccountCard';
import { AddAccountModal } from './components/AddAccountModal';

const ALL = 'all';
const FILTER_KEYS = ['platform', 'status', 'search'] as const;

/** Social Media Accounts (/accounts). */
export function AccountsPage() {
  const [filters, setFilters] = useUrlFilters(FILTER_KEYS);
  const [search, setSearch] = useUrlSearch(filters.search, setFilters);
  const listFilters = {
    platform: platformValues.find((value) => value === filters.platform),
    status: accountStatusValues.find((value) => value === filters.status),
    search: filters.search,
  };
  const filtered = Boolean(listFilters.platform || listFilters.status || listFilters.search);
  const accounts = usePagedList<Account>('/api/accounts', listFilters);
  const devices = useDevices();
  const canManage = useCanManageAccounts();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const deviceNames = new Map((devices.data ?? []).map((device) => [device.id, device.name]));

  return (
    <Stack gap={0}>
      <PageHeader
        title="Social Media Accounts"
        subtitle="Manage the accounts your devices run"
        actions={
          <Group gap="xs">
            {canManage && (
              <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={() => setImporting(true)}>
                Import CSV
              </Button>
            )}
            <ExportButton entity="accounts" filters={listFilters} />
            {canManage && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
                Add Account
              </Button>
            )}
          </Group>
        }
      />

      <ListToolbar
        search={{ label: 'Search accounts', placeholder: 'Search accounts...', value: search, onChange: setSearch }}
        filters={[
          platformFilter(listFilters.platform, (platform) => setFilters({ platform })),
          {
            label: 'Filter by status',
            data: [{ value: ALL, label: 'All Statuses' }, ...accountStatusValues.map((value) => ({ value, label: accountStatusLabels[value] }))],
            value: listFilters.status ?? ALL,
            onChange: (value) => setFilters({ status: value === ALL ? null : value }),
            width: 170,
          },
        ]}
      />

      {accounts.isPending ? (
        <LoadingState label="Loading accounts..." />
      ) : accounts.isError ? (
        <Alert color="red" title="Failed to fetch accounts">
          {accounts.error.message}
        </Alert>
      ) : accounts.rows.length === 0 ? (
        <EmptyCard
          title={filtered ? 'No accounts match your filters' : 'No accounts yet'}
          hint={canManage && !filtered && 'Add a social media account and assign it to a device.'}
        />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {accounts.rows.map((account) => (
              <AccountCard key={account.id} account={account} deviceName={(account.deviceId && deviceNames.get(account.deviceId)) || null} />
            ))}
          </SimpleGrid>
          <LoadMore hasMore={accounts.hasNextPage} loading={accounts.isFetchingNextPage} onLoad={() => void accounts.fetchNextPage()} />
        </>
      )}

      {canManage && <AddAccountModal opened={adding} onClose={() => setAdding(false)} />}
      {canManage && <ImportCsvModal entity="accounts" opened={importing} onClose={() => setImporting(false)} />}
    </Stack>
  );
}
