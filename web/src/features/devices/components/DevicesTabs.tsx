/** Devices' tabs: the device list (/devices) and, for operators, the app library they install (/devices/apps). */
import { SubNav } from '../../../shared/ui/SubNav';
import { useCurrentUser } from '../../auth/auth.api';

export function DevicesTabs() {
  const isOperator = useCurrentUser()?.role === 'operator';
  // A VA has the phones only: no tabs for one part.
  if (!isOperator) return null;
  return (
    <SubNav
      label="Devices"
      items={[
        { label: 'Devices', to: '/devices' },
        { label: 'Apps', to: '/devices/apps' },
      ]}
    />
  );
}
