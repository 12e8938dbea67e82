/**
 * Settings in bulk (issue #42): the chosen phones, or a group's, are given the settings ticked here through their farm
 * hosts, and the dialog then shows what came of each setting on each phone. Wi-Fi is a person's toggle, set once here.
 */
import { Alert, Badge, Button, Checkbox, Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import type { PhoneSettingsBody, PhoneSettingsResult } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';
import { refusalMessage } from '../../../shared/refusal';
import { FormModal } from '../../../shared/ui/FormModal';
import { ScrollX } from '../../../shared/ui/ScrollX';
import { useGroups } from '../../groups/groups.api';
import { TableHead } from '../../../shared/ui/TableHead';
import {
  emptyPhoneSettingsForm,
  outcomeColors,
  outcomeWords,
  screenTimeouts,
  settingLabels,
  settingsOfForm,
  settingsRequest,
  type PhoneSettingsForm,
} from './phone-settings';

function useSetPhoneSettings() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PhoneSettingsBody) => apiRequest<PhoneSettingsResult>('/api/devices/settings', { method: 'POST', body }),
    // Tasks for a person may have been made.
    onSuccess: () => invalidate('/api/tasks'),
  });
}

const apps = [
  { value: 'com.instagram.android', label: 'Instagram' },
  { value: 'com.zhiliaoapp.musically', label: 'TikTok' },
  { value: 'com.google.android.youtube', label: 'YouTube' },
];

export function PhoneSettingsModal({ opened, onClose, deviceIds }: { opened: boolean; onClose: () => void; deviceIds: readonly string[] }) {
  const groups = useGroups();
  const save = useSetPhoneSettings();
  const [form, setForm] = useState<PhoneSettingsForm>(emptyPhoneSettingsForm);
  const [target, setTarget] = useState<'selected' | 'group'>(deviceIds.length > 0 ? 'selected' : 'group');
  const [groupId, setGroupId] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [result, setResult] = useState<PhoneSettingsResult | null>(null);
  const set = <K extends keyof PhoneSettingsForm>(key: K, value: PhoneSettingsForm[K]) => setForm((current) => ({ ...current, [key]: value }));

  const close = () => {
    setForm(emptyPhoneSettingsForm());
    setResult(null);
    setProblem(null);
    onClose();
  };

  const submit = () => {
    const settings = settingsOfForm(form);
    if (typeof settings === 'string') return setProblem(settings);
    if (target === 'group' && !groupId) return setProblem('Choose a group');
    setProblem(null);
    save.mutate(settingsRequest(target === 'group' ? { groupId: groupId! } : { deviceIds }, settings), {
      onSuccess: setResult,
      onError: (error) => setProblem(refusalMessage(error, 'The settings could not be sent. Please try again.')),
    });
  };

  return (
    <FormModal opened={opened} onClose={close} title="Phone settings" size="lg">
      {result ? (
        <Stack gap="sm">
          <ScrollX label="What came of the settings, scrollable" minWidth={320}>
            <Table aria-label="Settings per phone">
              <TableHead columns={['Phone', 'Result']} />
              <Table.Tbody>
                {result.results.map((row) => (
                  <Table.Tr key={row.deviceId}>
                    <Table.Td>{row.name}</Table.Td>
                    <Table.Td>
                      {row.error ? (
                        <Text size="sm" c="red">
                          {row.error}
                        </Text>
                      ) : (
                        <Group gap={4}>
                          {row.outcomes.map((outcome) => (
                            <Badge key={outcome.setting} color={outcomeColors[outcome.outcome]} variant="light" title={outcome.detail ?? undefined} tt="none">
                              {settingLabels[outcome.setting]}: {outcomeWords[outcome.outcome]}
                            </Badge>
                          ))}
                        </Group>
                      )}
                      {row.taskId ? (
                        <Text size="xs" c="dimmed">
                          A task asks its VA to do the rest by hand.
                        </Text>
                      ) : null}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollX>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
          noValidate
        >
          <Stack gap="md">
            <SegmentedControl
              aria-label="Apply to"
              value={target}
              onChange={(value) => setTarget(value === 'group' ? 'group' : 'selected')}
              data={[
                { value: 'selected', label: `${deviceIds.length} selected ${deviceIds.length === 1 ? 'phone' : 'phones'}`, disabled: deviceIds.length === 0 },
                { value: 'group', label: 'A group' },
              ]}
            />
            {target === 'group' ? (
              <Select
                label="Group"
                placeholder="Choose a group"
                data={(groups.data ?? []).map((group) => ({
                  value: group.id,
                  label: `${group.kind === 'tag' ? '#' : ''}${group.name} (${group.deviceIds.length})`,
                }))}
                value={groupId}
                onChange={setGroupId}
                searchable
              />
            ) : null}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Select
                label="Stay awake while charging"
                placeholder="Leave as it is"
                clearable
                data={[
                  { value: 'on', label: 'On' },
                  { value: 'off', label: 'Off' },
                ]}
                value={form.stayAwake === null ? null : form.stayAwake ? 'on' : 'off'}
                onChange={(value) => set('stayAwake', value === null ? null : value === 'on')}
              />
              <Select
                label="Screen timeout"
                placeholder="Leave as it is"
                clearable
                data={screenTimeouts}
                value={form.screenTimeoutMs}
                onChange={(value) => set('screenTimeoutMs', value)}
              />
              <NumberInput
                label="Brightness (0–255)"
                placeholder="Leave as it is"
                min={0}
                max={255}
                allowDecimal={false}
                allowNegative={false}
                value={form.brightness ?? ''}
                onChange={(value) => set('brightness', typeof value === 'number' ? value : null)}
              />
              <Select
                label="Wi-Fi"
                description="Set once, as a person would; never scheduled"
                placeholder="Leave as it is"
                clearable
                data={[
                  { value: 'on', label: 'On' },
                  { value: 'off', label: 'Off' },
                ]}
                value={form.wifi}
                onChange={(value) => set('wifi', value === 'on' || value === 'off' ? value : null)}
              />
              <Select
                label="App language: app"
                placeholder="Leave as it is"
                clearable
                searchable
                data={apps}
                value={form.appPackage || null}
                onChange={(value) => set('appPackage', value ?? '')}
              />
              <TextInput
                label="App language: language"
                description="A tag such as de or pt-BR (Android 13+; older phones get a task)"
                value={form.appLocale}
                onChange={(event) => set('appLocale', event.currentTarget.value)}
              />
            </SimpleGrid>
            <Checkbox
              label="Turn off automatic updates (system updates by adb; the Play Store's own switch becomes a task for the VA)"
              checked={form.autoUpdatesOff}
              onChange={(event) => set('autoUpdatesOff', event.currentTarget.checked)}
            />
            {problem ? (
              <Alert color="red" role="alert">
                {problem}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={save.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                Apply settings
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </FormModal>
  );
}
