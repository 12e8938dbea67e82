import { Image, Stack, Text } from '@mantine/core';
import type { TwoFactorSetup } from '@farm/contracts';
import { CopyField } from '../../../shared/ui/CopyField';

/** What an authenticator app needs: the QR code to scan, or the setup key to type. */
export function TwoFactorSetupFields({ setup }: { setup: TwoFactorSetup }) {
  return (
    <Stack gap="sm" align="stretch">
      <Text size="sm">Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy…), then enter the 6-digit code it shows.</Text>
      <Image src={setup.qrCode} alt="QR code for your authenticator app" w={200} h={200} mx="auto" radius="sm" bg="white" p={4} />
      <CopyField label="Setup key (if you cannot scan)" value={setup.secret} copyLabel="Copy setup key" />
    </Stack>
  );
}
