import { Alert, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { CopyField } from '../../../shared/ui/CopyField';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { agentCommand, type DeviceCredential } from '../devices.api';

export interface ConnectPhoneModalProps {
  /** The phone being connected; null closes the dialog. */
  deviceName: string | null;
  credential: DeviceCredential | undefined;
  pending: boolean;
  failed: boolean;
  onClose: () => void;
}

/** The phone agent's new credential, shown once, with the command that runs the simulated agent. */
export function ConnectPhoneModal({ deviceName, credential, pending, failed, onClose }: ConnectPhoneModalProps) {
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  return (
    <FormModal opened={deviceName !== null} onClose={onClose} title={`Connect Phone: ${deviceName ?? ''}`} size="lg">
      {failed ? (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Error">
          Failed to create a credential for this phone.
        </Alert>
      ) : pending || !credential ? (
        <LoadingState label="Creating credential..." />
      ) : (
        <Stack gap="md">
          <Text size="sm">
            The phone&apos;s agent signs in with this credential. It is shown only now; connecting the phone again issues a new
            one, and the one before stops working.
          </Text>
          <CopyField label="Device credential" value={credential.token} copyLabel="Copy credential" />
          <CopyField label="Run the simulated phone agent" value={agentCommand(origin, credential.token)} copyLabel="Copy command" multiline />
          <Text size="xs" c="dimmed">
            Run the command from the repository root. The phone shows as online once its agent connects.
          </Text>
        </Stack>
      )}
    </FormModal>
  );
}
