import { Group, Image, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { formatDateTime } from '../format';
import { CopyField } from './CopyField';

export interface EnrollmentCodeProps {
  code: string;
  expiresAt: string;
  /** The commands to show, each a label and the command (the code and this console's address filled in). */
  commands: { label: string; command: string }[];
}

/** What a phone (or a farm host) joins with: a one-time code, as text and as a QR code holding this console's address and the code. */
export function EnrollmentCode({ code, expiresAt, commands }: EnrollmentCodeProps) {
  const [qr, setQr] = useState<string | null>(null);
  const server = typeof window === 'undefined' ? '' : window.location.origin;
  useEffect(() => {
    let live = true;
    const link = `farmagent://enroll?server=${encodeURIComponent(server)}&code=${encodeURIComponent(code)}`;
    void import('qrcode')
      .then((qrcode) => qrcode.toDataURL(link, { margin: 1, width: 176, errorCorrectionLevel: 'M' }))
      .then((url) => live && setQr(url))
      .catch(() => live && setQr(null));
    return () => {
      live = false;
    };
  }, [code, server]);

  return (
    <Stack gap="md">
      <Group align="center" gap="lg" wrap="wrap">
        {qr ? <Image src={qr} alt={`QR code for enrollment code ${code}`} w={176} h={176} radius="sm" /> : null}
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            One-time code
          </Text>
          <Text ff="monospace" fz={32} fw={700} lts={2} data-testid="enrollment-code">
            {code}
          </Text>
          <Text size="sm" c="dimmed">
            {`Works once, until ${formatDateTime(expiresAt)} (15 minutes). A new code replaces it.`}
          </Text>
        </Stack>
      </Group>
      {commands.map(({ label, command }) => (
        <CopyField key={label} label={label} value={command.replaceAll('{server}', server).replaceAll('{code}', code)} copyLabel="Copy command" multiline />
      ))}
    </Stack>
  );
}
