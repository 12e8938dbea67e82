import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconShieldExclamation } from '@tabler/icons-react';
import type { MeResponse } from '@farm/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { formatDateTime } from '../../../shared/format';
import { ME_KEY } from '../auth.api';

/**
 * What happened to the person's sign-in while they were away (codes refused after too many wrong ones, a password
 * reset made for them), shown once after they sign in: closing it marks the notices seen, so they do not come back.
 */
export function SignInNotices() {
  const queryClient = useQueryClient();
  const me = useQuery<MeResponse>({ queryKey: ME_KEY });
  const notices = me.data?.notices ?? [];
  const seen = useMutation({
    mutationFn: (ids: string[]) => apiRequest<void>('/api/auth/notices/seen', { method: 'POST', body: { ids } }),
    onSettled: () => {
      queryClient.setQueryData<MeResponse>(ME_KEY, (current) => (current ? { ...current, notices: [] } : current));
    },
  });
  const close = () => seen.mutate(notices.map((notice) => notice.id));

  return (
    <Modal opened={notices.length > 0} onClose={close} title="About your sign-in" centered>
      <Stack gap="sm">
        {notices.map((notice) => (
          <Alert key={notice.id} variant="light" color="orange" icon={<IconShieldExclamation />}>
            <Text size="sm">{notice.message}</Text>
            <Text size="xs" c="dimmed" mt={4}>
              {formatDateTime(notice.createdAt)}
            </Text>
          </Alert>
        ))}
        <Group justify="flex-end">
          <Button onClick={close} loading={seen.isPending}>
            I understand
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
