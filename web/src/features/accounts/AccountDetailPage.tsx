import { useEffect, useRef, useState, type ReactNode } from 'react';
import { refusalMessage } from '../../shared/refusal';
import {
  Alert,
  Anchor,
  Avatar,
  Badge,
  Button,
  Card,
  FileButton,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { IconArrowLeft, IconCamera, IconPencil, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { accountStatusLabels, accountStatusValues, updateAccountBody, type Account, type UpdateAccountBody } from '@farm/contracts';
import { formatDateTime } from '../../shared/format';
import { errorToast, toast } from '../../shared/toast';
import { LoadingState } from '../../shared/ui/LoadingState';
import { checkFiles, imageRestrictions, readAsDataUrl, summariseErrors, uploadMessages } from '../../shared/uploads/uploads';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { useAccount, useCanManageAccounts, useDeleteAccount, useDevices, useUpdateAccount } from './accounts.api';
import { accountChanges, accountDraft, accountStatusColors, hasChanges, platformColors, platformLabels, type AccountDraft } from './accounts.form';
import { AccountGrowthCard } from './components/AccountGrowthCard';

export const accountUpdateFailure = 'Failed to update account';

function BackLink() {
  return (
    <Anchor component={Link} to="/accounts" size="sm" w="fit-content">
      <Group gap={4} component="span">
        <IconArrowLeft size={16} aria-hidden />
        Back to Accounts
      </Group>
    </Anchor>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2} miw={0}>
      <Text size="xs" c="dimmed" fw={500} tt="uppercase">
        {label}
      </Text>
      <Text component="div" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Stack>
  );
}

interface AccountViewProps {
  account: Account;
  deviceName: string | null;
  /** Operators edit everything; a VA only followers and following (the server refuses the rest). */
  canManage: boolean;
}

function AccountView({ account, deviceName, canManage }: AccountViewProps) {
  const navigate = useNavigate();
  const update = useUpdateAccount(account.id);
  const remove = useDeleteAccount();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<AccountDraft>(() => accountDraft(account));
  const [errors, setErrors] = useState<Partial<Record<keyof AccountDraft, string>>>({});
  const [deleting, setDeleting] = useState(false);
  // Cleared after each pick so that choosing the same picture again still uploads it.
  const resetPicture = useRef<() => void>(null);

  // A fresh copy from the server (after a save or a picture upload) resets the draft when not editing.
  useEffect(() => {
    if (!editing) setDraft(accountDraft(account));
  }, [account, editing]);

  const changes = accountChanges(account, draft);
  const changed = hasChanges(changes);

  function set<K extends keyof AccountDraft>(key: K, value: AccountDraft[K]): void {
    setDraft((current) => ({ ...current, [key]: value }));
    setErrors((current) => ({ ...current, [key]: undefined }));
  }

  function save(body: UpdateAccountBody, after?: () => void): void {
    update.mutate(body, {
      onSuccess: () => {
        toast('Account Updated', 'Account information has been updated successfully');
        after?.();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, accountUpdateFailure)),
    });
  }

  function submit(): void {
    const parsed = updateAccountBody.safeParse(changes);
    if (!parsed.success) {
      const found: Partial<Record<keyof AccountDraft, string>> = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if (field === 'username' || field === 'status' || field === 'followers' || field === 'following' || field === 'bio') {
          found[field] ??= issue.message;
        }
      }
      setErrors(found);
      return;
    }
    save(changes, () => setEditing(false));
  }

  function cancel(): void {
    setDraft(accountDraft(account));
    setErrors({});
    setEditing(false);
  }

  async function pickPicture(file: File | null): Promise<void> {
    resetPicture.current?.();
    if (!file) return;
    const { accepted, errors: problems } = checkFiles([file], imageRestrictions);
    const chosen = accepted[0];
    if (!chosen) {
      errorToast('Upload Error', summariseErrors(problems));
      return;
    }
    try {
      save({ profilePicture: await readAsDataUrl(chosen) });
    } catch {
      errorToast('Upload Error', uploadMessages.failed(chosen.name));
    }
  }

  function confirmDelete(): void {
    remove.mutate(account.id, {
      onSuccess: () => {
        toast('Account Deleted', `@${account.username} was removed.`);
        void navigate('/accounts');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete account')),
    });
  }

  return (
    <Stack gap="lg">
      <BackLink />
      {account.status === 'paused' && account.pausedMessage ? (
        <Alert color="red" variant="light" title="Automation paused for safety">
          {`${account.pausedMessage}. A person should check the account on its phone, then set its status back to Active to resume.`}
        </Alert>
      ) : null}
      <Group justify="space-between" align="flex-start" gap="md">
        <Group gap="md" wrap="nowrap" miw={0}>
          <Avatar src={account.profilePicture} alt={`Profile picture of @${account.username}`} size={72} radius="xl">
            {account.username.slice(0, 2).toUpperCase()}
          </Avatar>
          <Stack gap={6} miw={0}>
            <Title order={1} fz={{ base: 22, sm: 28 }} style={{ overflowWrap: 'anywhere' }}>
              @{account.username}
            </Title>
            <Group gap={6}>
              <Badge color={platformColors[account.platform]} variant="light">
                {platformLabels[account.platform]}
              </Badge>
              <Badge color={accountStatusColors[account.status]} variant="dot">
                {accountStatusLabels[account.status]}
              </Badge>
            </Group>
            {canManage && (
              <FileButton onChange={(file) => void pickPicture(file)} accept="image/*" resetRef={resetPicture}>
                {(props) => (
                  <Button
                    {...props}
                    size="xs"
                    variant="default"
                    leftSection={<IconCamera size={14} />}
                    w="fit-content"
                    loading={update.isPending && update.variables.profilePicture !== undefined}
                  >
                    Upload Picture
                  </Button>
                )}
              </FileButton>
            )}
          </Stack>
        </Group>
        <Group gap="xs">
          {editing ? (
            <>
              <Button variant="default" onClick={cancel} disabled={update.isPending}>
                Cancel
              </Button>
              <Button onClick={submit} disabled={!changed} loading={update.isPending}>
                Save Changes
              </Button>
            </>
          ) : (
            <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setEditing(true)}>
              Edit
            </Button>
          )}
          {canManage && !editing && (
            <Button variant="light" color="red" leftSection={<IconTrash size={16} />} onClick={() => setDeleting(true)}>
              Delete
            </Button>
          )}
        </Group>
      </Group>

      <Card withBorder radius="md" padding="lg">
        {editing ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (changed) submit();
            }}
            noValidate
          >
            <Stack gap="md">
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label="Username"
                  required
                  disabled={!canManage}
                  value={draft.username}
                  onChange={(event) => set('username', event.currentTarget.value)}
                  error={errors.username}
                />
                <Select
                  label="Status"
                  allowDeselect={false}
                  disabled={!canManage}
                  data={accountStatusValues.map((value) => ({ value, label: accountStatusLabels[value] }))}
                  value={draft.status}
                  onChange={(value) => {
                    const status = accountStatusValues.find((candidate) => candidate === value);
                    if (status) set('status', status);
                  }}
                  error={errors.status}
                />
                <NumberInput
                  label="Followers"
                  min={0}
                  allowDecimal={false}
                  allowNegative={false}
                  thousandSeparator=","
                  value={draft.followers}
                  onChange={(value) => set('followers', value)}
                  error={errors.followers}
                />
                <NumberInput
                  label="Following"
                  min={0}
                  allowDecimal={false}
                  allowNegative={false}
                  thousandSeparator=","
                  value={draft.following}
                  onChange={(value) => set('following', value)}
                  error={errors.following}
                />
              </SimpleGrid>
              <Textarea
                label="Bio"
                disabled={!canManage}
                autosize
                minRows={3}
                maxRows={8}
                value={draft.bio}
                onChange={(event) => set('bio', event.currentTarget.value)}
                error={errors.bio}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <Field label="Platform">{platformLabels[account.platform]}</Field>
                <Field label="Device">{deviceName ?? 'Unknown Device'}</Field>
              </SimpleGrid>
              {/* Enter in a field saves, like the Save Changes button. */}
              <button type="submit" hidden aria-hidden tabIndex={-1} />
            </Stack>
          </form>
        ) : (
          <Stack gap="md">
            <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
              <Field label="Username">@{account.username}</Field>
              <Field label="Status">{accountStatusLabels[account.status]}</Field>
              <Field label="Platform">{platformLabels[account.platform]}</Field>
              <Field label="Device">{deviceName ?? 'Unknown Device'}</Field>
              <Field label="Followers">{account.followers.toLocaleString()}</Field>
              <Field label="Following">{account.following.toLocaleString()}</Field>
            </SimpleGrid>
            <Field label="Bio">
              {account.bio ? (
                <span style={{ whiteSpace: 'pre-wrap' }}>{account.bio}</span>
              ) : (
                <Text span c="dimmed" fs="italic">
                  No bio set
                </Text>
              )}
            </Field>
          </Stack>
        )}
      </Card>

      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Field label="Created">{formatDateTime(account.createdAt)}</Field>
        <Field label="Last Updated">{formatDateTime(account.updatedAt)}</Field>
      </SimpleGrid>

      <AccountGrowthCard accountId={account.id} />

      {canManage && (
        <ConfirmModal
          opened={deleting}
          title="Delete Account"
          message={`Delete @${account.username}? This cannot be undone.`}
          confirmLabel="Delete Account"
          loading={remove.isPending}
          onConfirm={confirmDelete}
          onClose={() => setDeleting(false)}
        />
      )}
    </Stack>
  );
}

/** Account detail (/accounts/{id}). */
export function AccountDetailPage() {
  const { id = '' } = useParams();
  const account = useAccount(id);
  const devices = useDevices();
  const canManage = useCanManageAccounts();

  if (account.isPending) {
    return (
      <Stack gap="md">
        <BackLink />
        <LoadingState label="Loading account..." />
      </Stack>
    );
  }
  if (account.isError) {
    return (
      <Stack gap="md">
        <BackLink />
        <Alert color="red" title="Failed to fetch account">
          {account.error.message}
        </Alert>
      </Stack>
    );
  }
  const deviceId = account.data.deviceId;
  const deviceName = (deviceId && devices.data?.find((device) => device.id === deviceId)?.name) || null;
  return <AccountView key={account.data.id} account={account.data} deviceName={deviceName} canManage={canManage} />;
}
