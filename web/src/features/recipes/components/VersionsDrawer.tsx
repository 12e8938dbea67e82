import { Badge, Button, Drawer, Group, Paper, Stack, Text } from '@mantine/core';
import type { RecipeVersion } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { LoadingState } from '../../../shared/ui/LoadingState';

export interface VersionsDrawerProps {
  opened: boolean;
  onClose: () => void;
  versions: RecipeVersion[] | undefined;
  /** The version open in the editor. */
  currentId: string;
  canRestore: boolean;
  onOpen: (version: RecipeVersion) => void;
  onCompare: (version: RecipeVersion) => void;
  onRestore: (version: RecipeVersion) => void;
}

/** Every version of the recipe, the newest first: who saved it, when, and what changed; compare, open or restore one. */
export function VersionsDrawer({ opened, onClose, versions, currentId, canRestore, onOpen, onCompare, onRestore }: VersionsDrawerProps) {
  return (
    <Drawer opened={opened} onClose={onClose} title="Versions" position="right" size="md" closeButtonProps={{ 'aria-label': 'Close versions' }}>
      {versions === undefined ? (
        <LoadingState label="Loading versions..." />
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {versions.map((version) => {
            const current = version.id === currentId;
            return (
              <Paper key={version.id} component="li" withBorder p="sm" radius="sm" aria-label={`Version ${version.version}`}>
                <Group gap="xs" mb={4} wrap="wrap">
                  <Text fw={700}>{`v${version.version}`}</Text>
                  {version.enabled ? (
                    <Badge color="green" variant="light">
                      Sent to phones
                    </Badge>
                  ) : (
                    <Badge color="gray" variant="light">
                      Off
                    </Badge>
                  )}
                  {current ? (
                    <Badge color="blue" variant="outline">
                      Open now
                    </Badge>
                  ) : null}
                  {version.invalid ? (
                    <Badge color="red" variant="light">
                      Fails the schema
                    </Badge>
                  ) : null}
                </Group>
                <Text size="xs" c="dimmed">
                  {`${version.savedBy ?? 'Someone no longer here'} · ${formatDateTime(version.createdAt)}${version.basedOnVersion ? ` · from v${version.basedOnVersion}` : ''}`}
                </Text>
                {version.note ? (
                  <Text size="sm" mt={4} style={{ overflowWrap: 'anywhere' }}>
                    {version.note}
                  </Text>
                ) : null}
                {current ? null : (
                  <Group gap="xs" mt="xs">
                    <Button size="compact-sm" variant="default" onClick={() => onCompare(version)} aria-label={`Compare v${version.version} with this version`}>
                      Compare
                    </Button>
                    <Button size="compact-sm" variant="subtle" onClick={() => onOpen(version)} aria-label={`Open v${version.version}`}>
                      Open
                    </Button>
                    {canRestore ? (
                      <Button size="compact-sm" variant="light" color="orange" onClick={() => onRestore(version)} aria-label={`Restore v${version.version}`}>
                        Restore
                      </Button>
                    ) : null}
                  </Group>
                )}
              </Paper>
            );
          })}
        </Stack>
      )}
    </Drawer>
  );
}
