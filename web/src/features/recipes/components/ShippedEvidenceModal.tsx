/**
 * A shipped template's evidence, selector by selector: verified (and the repository, commit, path and line that hold
 * it, with the fixture carrying the node) or unverified (and why). A template acting on an unverified selector runs
 * only where the workspace verified the app version or lets untested templates run; the modal says which.
 */
import { Alert, Badge, Modal, Stack, Table, Text } from '@mantine/core';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useShippedRecipe } from '../recipes.api';

export function ShippedEvidenceModal({ recipeId, name, onClose }: { recipeId: string | null; name: string; onClose: () => void }) {
  const detail = useShippedRecipe(recipeId);
  const data = detail.data;
  return (
    <Modal opened={recipeId !== null} onClose={onClose} title={`Evidence: ${name}`} size="xl">
      {!data ? (
        <LoadingState label="Loading the evidence" />
      ) : (
        <Stack gap="sm">
          {data.heldBack.length > 0 ? (
            <Alert color="yellow" title="Off unless you opt in">
              It acts on what no public source shows ({data.heldBack.join('; ')}): it runs only on an app version you verified, or with “Try shipped templates
              on app versions no one verified” on.
            </Alert>
          ) : (
            <Text size="sm">Every selector it acts on is verified: it runs on its tested versions.</Text>
          )}
          <Table verticalSpacing="xs" aria-label="Selector evidence">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Where</Table.Th>
                <Table.Th>Selector</Table.Th>
                <Table.Th>Verified</Table.Th>
                <Table.Th>Source</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.evidence.map((entry) => (
                <Table.Tr key={`${entry.where} ${entry.match}`} aria-label={entry.where}>
                  <Table.Td>
                    <Text size="xs">{entry.where}</Text>
                    {entry.role === 'marker' && (
                      <Text size="xs" c="dimmed">
                        marker
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {entry.match}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {entry.verified ? (
                      <Badge color="teal" variant="light">
                        Verified
                      </Badge>
                    ) : (
                      <Stack gap={2}>
                        <Badge color="yellow" variant="light">
                          Unverified
                        </Badge>
                        <Text size="xs">{entry.unverified}</Text>
                      </Stack>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
                      {entry.source ?? 'No source given'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Modal>
  );
}
