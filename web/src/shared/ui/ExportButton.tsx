import { Button, type ButtonProps } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { withQuery, type QueryParams } from '../query';

/** Downloads the list (or the device usage report) as CSV with the filters it is shown with. */
export function ExportButton({
  entity,
  filters = {},
  label = 'Export CSV',
  size,
}: {
  entity: 'tasks' | 'posts' | 'accounts' | 'devices' | 'sessions' | 'activities' | 'device-usage';
  filters?: QueryParams;
  label?: string;
  size?: ButtonProps['size'];
}) {
  return (
    <Button
      component="a"
      href={withQuery(`/api/export/${entity}.csv`, filters)}
      download
      variant="default"
      size={size}
      leftSection={<IconDownload size={16} />}
    >
      {label}
    </Button>
  );
}
