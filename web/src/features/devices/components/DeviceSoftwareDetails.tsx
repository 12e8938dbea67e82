import type { DeviceSoftware } from '@farm/contracts';
import { Text } from '@mantine/core';
import { useDeviceSoftware } from '../devices.api';
import { Detail } from '../../../shared/ui/Detail';

/** The apps recipes drive, by package, as a person knows them. */
const appNames: Record<string, string> = {
  'com.instagram.android': 'Instagram',
  'com.zhiliaoapp.musically': 'TikTok',
  'com.ss.android.ugc.trill': 'TikTok (trill)',
};

/** Which reader reads the phone's UI, in words. */
export function uiReaderText(software: Pick<DeviceSoftware, 'uiReader' | 'reportedAt'> | undefined): string {
  if (!software?.reportedAt) return 'Not reported yet';
  const reader = software.uiReader;
  if (!reader) return 'Unknown (this agent does not say)';
  switch (reader.kind) {
    case 'ui-server':
      return reader.version ? `UI server ${reader.version}` : 'UI server (version unknown)';
    case 'dump':
      return 'uiautomator dump (fallback, slower; no toasts)';
    case 'sim':
      return 'Simulated phone';
  }
}

/** Each app recipes drive with its installed version, or that it is not installed. */
export function appVersionLines(software: Pick<DeviceSoftware, 'apps' | 'reportedAt'> | undefined): string[] {
  if (!software?.reportedAt) return ['Not reported yet'];
  if (software.apps.length === 0) return ['Unknown (this agent does not say)'];
  return software.apps.map((app) => `${appNames[app.package] ?? app.package}: ${app.version ?? 'not installed'}`);
}

/** The UI reader and the recipe apps' versions the phone's agent said at its last connection. */
export function DeviceSoftwareDetails({ deviceId, enabled }: { deviceId: string; enabled: boolean }) {
  const software = useDeviceSoftware(deviceId, enabled);
  const data = software.isPending ? undefined : software.data;
  const loading = software.isPending && enabled;
  return (
    <>
      <Detail label="UI reader">{loading ? 'Loading...' : software.isError ? 'Could not be read' : uiReaderText(data)}</Detail>
      <Detail label="Apps">
        {loading
          ? 'Loading...'
          : software.isError
            ? 'Could not be read'
            : appVersionLines(data).map((line) => (
                <Text key={line} size="sm">
                  {line}
                </Text>
              ))}
      </Detail>
    </>
  );
}
