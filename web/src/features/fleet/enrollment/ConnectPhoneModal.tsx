import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import type { Device } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { EnrollmentCode } from '../../../shared/ui/EnrollmentCode';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useIssueEnrollment, useRevokeCredential } from './enrollment.api';

export interface ConnectPhoneModalProps {
  /** The phone being connected; null closes the dialog. */
  device: Pick<Device, 'id' | 'name' | 'lastSeenAt'> | null;
  onClose: () => void;
}

/** Connects a phone: a one-time code its agent exchanges for its credential; and cutting a phone off. */
export function ConnectPhoneModal({ device, onClose }: ConnectPhoneModalProps) {
  const issue = useIssueEnrollment();
  const revoke = useRevokeCredential();
  const [confirming, setConfirming] = useState(false);
  const deviceId = device?.id;

  // A new code each time the dialog opens for a phone (reset and mutate are stable across renders).
  const { reset, mutate } = issue;
  useEffect(() => {
    setConfirming(false);
    reset();
    if (deviceId) mutate(deviceId);
  }, [deviceId, reset, mutate]);

  const cutOff = () => {
    if (!device) return;
    revoke.mutate(device.id, {
      onSuccess: () => {
        toast('Phone Disconnected', `${device.name} is cut off until it enrolls again.`);
        setConfirming(false);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to revoke the credential')),
    });
  };

  return (
    <FormModal opened={device !== null} onClose={onClose} title={`Connect Phone: ${device?.name ?? ''}`} size="lg">
      {issue.isError ? (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Error">
          {refusalMessage(issue.error, 'Failed to create an enrollment code for this phone.')}
        </Alert>
      ) : issue.isPending || !issue.data ? (
        <LoadingState label="Creating enrollment code..." />
      ) : (
        <Stack gap="md">
          <Text size="sm">
            Give this code to the phone&apos;s agent (or scan it with the agent app). It joins the phone to this device; the phone shows as online once its
            agent connects. Phones on a farm PC join by themselves through a phone host (Settings → Phone hosts).
          </Text>
          <EnrollmentCode
            code={issue.data.code}
            expiresAt={issue.data.expiresAt}
            commands={[
              {
                label: 'On the PC the phone is plugged into',
                command: 'pnpm farm-agent enroll --server {server} --code {code} && pnpm farm-agent run --serial <phone serial>',
              },
              { label: 'Or a simulated phone, to try the console', command: 'pnpm farm-agent sim --server {server} --code {code}' },
            ]}
          />
          <Group justify="space-between" gap="sm">
            <Button variant="default" onClick={() => device && issue.mutate(device.id)} loading={issue.isPending}>
              New Code
            </Button>
            {confirming ? (
              <Group gap="xs">
                <Button color="red" onClick={cutOff} loading={revoke.isPending}>
                  Confirm Disconnect
                </Button>
                <Button variant="default" onClick={() => setConfirming(false)}>
                  Keep Connected
                </Button>
              </Group>
            ) : (
              <Button color="red" variant="light" onClick={() => setConfirming(true)}>
                Disconnect Phone
              </Button>
            )}
          </Group>
        </Stack>
      )}
    </FormModal>
  );
}
