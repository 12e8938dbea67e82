import { Button } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { withQuery, type QueryParams } from '../query';

/** Downloads the list as CSV with the filters it is shown with. */
export function ExportButton({
  entity,
  filters = {},
  label = 'Export CSV',
}: {
  entity: 'tasks' | 'posts' | 'accounts' | 'devices' | 'sessions' | 'activities';
  filters?: QueryParams;
  label?: string;
}) {
  return (
    <Button component="a" href={withQuery(`/api/export/${entity}.csv`, filters)} download variant="default" leftSection={<IconDownload size={16} />}>
      {label}
    </Button>
  );
}
