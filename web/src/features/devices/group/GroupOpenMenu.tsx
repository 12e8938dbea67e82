/**
 * "Open" on every phone of the group, from the closed list the phones accept: Settings, Wi-Fi, an app's details page
 * (by package) and the Play Store page of an app of the workspace's library.
 */
import { Autocomplete, Button, Group, Menu, Modal, Select, Stack, Text } from '@mantine/core';
import { IconChevronDown, IconExternalLink } from '@tabler/icons-react';
import type { GroupAction } from '@farm/agent-protocol/group';
import type { GroupControlApps } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useAppLibrary } from '../../apps/apps.api';

const PACKAGE = /^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/;

/** The intents of the closed list, as the menu sends them. */
export const openIntents = {
  settings: { kind: 'intent', action: 'android.settings.SETTINGS' },
  wifi: { kind: 'intent', action: 'android.settings.WIFI_SETTINGS' },
  details: (pkg: string): GroupAction => ({ kind: 'intent', action: 'android.settings.APPLICATION_DETAILS_SETTINGS', data: `package:${pkg}` }),
  store: (pkg: string): GroupAction => ({ kind: 'intent', action: 'android.intent.action.VIEW', data: `market://details?id=${pkg}` }),
} as const satisfies Record<string, GroupAction | ((pkg: string) => GroupAction)>;

type Asking = 'details' | 'store' | null;

export function GroupOpenMenu({ disabled, act }: { disabled: boolean; act: (action: GroupAction) => void }) {
  const [asking, setAsking] = useState<Asking>(null);
  const [pkg, setPkg] = useState('');
  const library = useAppLibrary();
  // The Play Store opens only the library's apps; an app's details page, any package (the allowlist's are offered too).
  const allowed = useQuery<GroupControlApps>({ queryKey: ['/api/group-control/apps'] });
  const packages = [...new Set((library.data?.versions ?? []).map((version) => version.package))].sort();
  const detailsPackages = [...new Set([...packages, ...(allowed.data?.added ?? []), ...(allowed.data?.builtIn ?? []).map((app) => app.package)])].sort();
  const valid = asking === 'store' ? packages.includes(pkg) : PACKAGE.test(pkg.trim());

  const open = () => {
    if (!asking || !valid) return;
    act(asking === 'store' ? openIntents.store(pkg) : openIntents.details(pkg.trim()));
    setAsking(null);
    setPkg('');
  };

  return (
    <>
      <Menu position="bottom-start" withinPortal>
        <Menu.Target>
          <Button
            size="compact-sm"
            variant="default"
            rightSection={<IconChevronDown size={14} />}
            leftSection={<IconExternalLink size={14} />}
            disabled={disabled}
          >
            Open
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => act(openIntents.settings)}>Settings</Menu.Item>
          <Menu.Item onClick={() => act(openIntents.wifi)}>Wi-Fi</Menu.Item>
          <Menu.Item onClick={() => setAsking('details')}>App details…</Menu.Item>
          <Menu.Item onClick={() => setAsking('store')}>Play Store page…</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Modal opened={asking !== null} onClose={() => setAsking(null)} title={asking === 'store' ? 'Open a Play Store page' : 'Open an app’s details'} size="sm">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            open();
          }}
        >
          <Stack gap="sm">
            {asking === 'store' ? (
              packages.length === 0 ? (
                <Text size="sm" c="dimmed">
                  The app library has no apps yet: add one in Devices → Apps to open its Play Store page.
                </Text>
              ) : (
                <Select
                  label="App of the library"
                  placeholder="Choose a package"
                  data={packages}
                  value={pkg || null}
                  onChange={(value) => setPkg(value ?? '')}
                  searchable
                />
              )
            ) : (
              <Autocomplete
                label="Package"
                placeholder="com.example.app"
                data={detailsPackages}
                value={pkg}
                onChange={setPkg}
                error={pkg.trim() && !valid ? 'A package name (com.example.app)' : undefined}
              />
            )}
            <Group justify="flex-end" gap="xs">
              <Button variant="default" onClick={() => setAsking(null)}>
                Cancel
              </Button>
              <Button type="submit" disabled={!valid}>
                Open on every phone
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
