/**
 * CSV import: pick a file, see a verdict per row (the server checks each row as the form would), then commit
 * the valid rows. A template with the expected columns can be downloaded.
 */
import { Alert, Badge, Box, Button, FileButton, Group, Stack, Table, Text } from '@mantine/core';
import { refusalMessage } from '../refusal';
import { IconFileSpreadsheet, IconTemplate, IconUpload } from '@tabler/icons-react';
import { importColumns, type ImportEntity, type ImportResult } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api';
import { useInvalidate } from '../invalidate';
import { errorToast, toast } from '../toast';
import { FormModal } from './FormModal';

const templates: Record<ImportEntity, string[]> = {
  posts: ['@youraccount', 'instagram', '', 'Caption text, quoted when it has commas', '#tag #another', '', 'scheduled', '2030-01-31T09:00:00Z'],
  accounts: ['newaccount', 'tiktok', 'warmup', 'Phone 1', 'A short bio', '0', '0'],
};

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function templateCsv(entity: ImportEntity): string {
  return `${[importColumns[entity].join(','), templates[entity].map(csvCell).join(',')].join('\r\n')}\r\n`;
}

async function sendCsv(entity: ImportEntity, text: string, dryRun: boolean): Promise<ImportResult> {
  const response = await fetch(`/api/import/${entity}${dryRun ? '?dryRun=1' : ''}`, {
    method: 'POST',
    credentials: 'include',
    headers: { 'Content-Type': 'text/csv' },
    body: text,
  });
  if (!response.ok) throw new ApiError(response.status, (await response.text()) || response.statusText);
  return (await response.json()) as ImportResult;
}

const nouns: Record<ImportEntity, [string, string]> = { posts: ['post', 'posts'], accounts: ['account', 'accounts'] };

export function ImportCsvModal({ entity, opened, onClose }: { entity: ImportEntity; opened: boolean; onClose: () => void }) {
  const invalidate = useInvalidate();
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState<string | null>(null);
  const preview = useMutation({ mutationFn: (csv: string) => sendCsv(entity, csv, true) });
  const commit = useMutation({ mutationFn: (csv: string) => sendCsv(entity, csv, false), onSuccess: () => invalidate(`/api/${entity}`, '/api/activities') });
  const template = useMemo(() => `data:text/csv;charset=utf-8,${encodeURIComponent(templateCsv(entity))}`, [entity]);
  const [one, many] = nouns[entity];

  // biome-ignore lint/correctness/useExhaustiveDependencies: the dialog forgets its file and answers when it closes, not when the mutations change
  useEffect(() => {
    if (opened) return;
    setFile(null);
    setText(null);
    preview.reset();
    commit.reset();
  }, [opened]); // reset between openings

  const choose = async (picked: File | null) => {
    setFile(picked);
    preview.reset();
    if (!picked) return;
    const csv = await picked.text();
    setText(csv);
    preview.mutate(csv);
  };

  const result = preview.data;
  const columns = importColumns[entity];
  const submit = () => {
    if (!text) return;
    commit.mutate(text, {
      onSuccess: (done) => {
        toast('Import Complete', `${done.created} ${done.created === 1 ? one : many} imported${done.invalid > 0 ? `, ${done.invalid} rows skipped` : ''}.`);
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, `Failed to import ${many}`)),
    });
  };

  return (
    <FormModal opened={opened} onClose={onClose} title={`Import ${many} from CSV`} size="xl">
      <Stack gap="md">
        <Text size="sm">The file needs a header row with these columns: {columns.join(', ')}. Each row is checked before anything is saved.</Text>
        <Group gap="sm">
          <FileButton onChange={(picked) => void choose(picked)} accept=".csv,text/csv">
            {(props) => (
              <Button {...props} leftSection={<IconUpload size={16} />} loading={preview.isPending}>
                Choose CSV file
              </Button>
            )}
          </FileButton>
          <Button component="a" href={template} download={`${many}-template.csv`} variant="default" leftSection={<IconTemplate size={16} />}>
            Download template
          </Button>
          {file ? (
            <Group gap={4}>
              <IconFileSpreadsheet size={16} aria-hidden />
              <Text size="sm">{file.name}</Text>
            </Group>
          ) : null}
        </Group>
        {preview.isError ? (
          <Alert color="red" title="This file cannot be imported">
            {refusalMessage(preview.error, 'The file could not be read')}
          </Alert>
        ) : null}
        {result ? (
          <>
            <Group gap="xs" aria-live="polite">
              <Badge color="green" variant="light">
                {result.valid} ready
              </Badge>
              <Badge color={result.invalid > 0 ? 'red' : 'gray'} variant="light">
                {result.invalid} with problems
              </Badge>
              <Text size="sm" c="dimmed">
                {result.total} rows
              </Text>
            </Group>
            <Box role="region" aria-label="Import preview, scrollable" tabIndex={0} mah={360} style={{ overflow: 'auto' }}>
              <Table striped withTableBorder stickyHeader aria-label="Import preview">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Line</Table.Th>
                    <Table.Th>Verdict</Table.Th>
                    {columns.map((column) => (
                      <Table.Th key={column}>{column}</Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.rows.map((row) => (
                    <Table.Tr key={row.line}>
                      <Table.Td>{row.line}</Table.Td>
                      <Table.Td>
                        {row.ok ? (
                          <Badge color="green" variant="light">
                            OK
                          </Badge>
                        ) : (
                          <Stack gap={2}>
                            {row.errors.map((error) => (
                              <Text
                                key={`${error.field}${error.message}`}
                                size="xs"
                                style={{ color: 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-3))' }}
                              >
                                {error.message}
                              </Text>
                            ))}
                          </Stack>
                        )}
                      </Table.Td>
                      {columns.map((column) => (
                        <Table.Td key={column}>
                          <Text size="xs" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                            {row.values[column] ?? ''}
                          </Text>
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Box>
          </>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} disabled={commit.isPending}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={!result || result.valid === 0} loading={commit.isPending}>
            {result ? `Import ${result.valid} ${result.valid === 1 ? one : many}` : `Import ${many}`}
          </Button>
        </Group>
      </Stack>
    </FormModal>
  );
}
