/** Devices → Apps (/devices/apps, operators): the workspace's app library and its rollouts to the phones. */
import { NotFoundInShell } from '../../shared/ui/NotFound';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { DevicesTabs } from '../devices/components/DevicesTabs';
import { AppsSection } from './AppsSection';

export function AppsPage() {
  const me = useCurrentUser();
  if (!me) return null;
  if (me.role !== 'operator') return <NotFoundInShell />;
  return (
    <>
      <DevicesTabs />
      <PageHeader title="Apps" subtitle="Install and update the apps on your phones" />
      <AppsSection />
    </>
  );
}
