import { useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { ActionIcon, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { routineTypeLabels, type Account, type Campaign, type Routine } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { useDeleteRoutine, useRoutines } from '../campaigns.api';
import { bySequence, routineMinutes } from '../routines.form';
import { AddRoutineModal } from './AddRoutineModal';
import { CampaignPanel, PanelAddButton, PanelList } from './CampaignPanel';
import { ConfirmModal } from '../../../shared/ui/ConfirmModal';

export interface RoutinesCardProps {
  campaign: Campaign;
  linkedAccounts: readonly Account[];
  accounts: readonly Account[];
  canManage: boolean;
}

/** The campaign's Automation Routines, in the order they run. */
export function RoutinesCard({ campaign, linkedAccounts, accounts, canManage }: RoutinesCardProps) {
  const routines = useRoutines(campaign.id);
  const remove = useDeleteRoutine();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Routine | null>(null);
  const usernames = new Map(accounts.map((account) => [account.id, account.username]));

  function confirmDelete(): void {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        toast('Routine Deleted', `${routineTypeLabels[deleting.type]} routine removed.`);
        setDeleting(null);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete routine. Please try again.')),
    });
  }

  return (
    <CampaignPanel
      title="Automation Routines"
      actions={canManage && <PanelAddButton label="Add Routine" onClick={() => setAdding(true)} />}
      dialogs={
        <>
          <AddRoutineModal opened={adding} onClose={() => setAdding(false)} campaign={campaign} linkedAccounts={linkedAccounts} />
          <ConfirmModal
            opened={deleting !== null}
            title="Delete Routine"
            message={deleting ? `Delete the ${routineTypeLabels[deleting.type]} routine? This cannot be undone.` : ''}
            confirmLabel="Delete"
            loading={remove.isPending}
            onConfirm={confirmDelete}
            onClose={() => setDeleting(null)}
          />
        </>
      }
    >
      <PanelList
        query={routines}
        texts={{
          loading: 'Loading routines...',
          failed: 'Failed to fetch routines',
          empty: 'No routines yet. Add one to automate this campaign.',
          list: 'Automation routines',
        }}
        showError
        order={bySequence}
      >
        {(routine) => {
          const label = routineTypeLabels[routine.type];
          return (
            <Card key={routine.id} withBorder radius="sm" padding="sm" component="li">
              <Group justify="space-between" wrap="nowrap" gap="sm">
                <Group gap="sm" wrap="nowrap" miw={0}>
                  <Badge variant="light" circle aria-label={`Step ${routine.sequence}`}>
                    {routine.sequence}
                  </Badge>
                  <Stack gap={0} miw={0}>
                    <Text fw={500} truncate>
                      {label}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {routine.forGroup
                        ? "Every account on the group's phones"
                        : routine.accountId
                          ? `@${usernames.get(routine.accountId) ?? 'unknown'}`
                          : 'No account'}{' '}
                      · {routineMinutes(routine)} min · Intensity {routine.intensity}
                    </Text>
                  </Stack>
                </Group>
                {canManage && (
                  <ActionIcon variant="subtle" color="red" aria-label={`Delete ${label} routine`} onClick={() => setDeleting(routine)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                )}
              </Group>
            </Card>
          );
        }}
      </PanelList>
    </CampaignPanel>
  );
}
