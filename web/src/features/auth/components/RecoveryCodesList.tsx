import { Alert, Code, SimpleGrid, Stack } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { CopyField } from '../../../shared/ui/CopyField';

/** One-time recovery codes, shown this once: the server keeps only their hashes. */
export function RecoveryCodesList({ codes }: { codes: readonly string[] }) {
  return (
    <Stack gap="sm">
      <Alert variant="light" color="yellow" icon={<IconAlertTriangle />} title="Save your recovery codes">
        Each code signs you in once if you lose your phone. They are shown only now: keep them somewhere safe.
      </Alert>
      <SimpleGrid cols={2} spacing="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <Code fz="sm">{code}</Code>
          </li>
        ))}
      </SimpleGrid>
      <CopyField label="All recovery codes" value={codes.join(' ')} copyLabel="Copy recovery codes" />
    </Stack>
  );
}
