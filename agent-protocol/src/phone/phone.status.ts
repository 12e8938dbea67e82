/**
 * One reading of how a phone is, for heartbeats: battery, screen, app in front and network, each read with the
 * phone's own timeouts (in one query where the phone offers `readings`). A reading that fails is left out rather than
 * failing the others; when all fail, the phone did not answer.
 */
import type { BatteryState, ForegroundApp, NetworkState, PhoneDevice, ScreenState } from './phone.device.ts';

export interface PhoneStatus {
  battery: BatteryState | null;
  screen: ScreenState | null;
  foreground: ForegroundApp | null;
  network: NetworkState | null;
  /** False when not one reading came back. */
  answered: boolean;
}

export async function readPhoneStatus(phone: PhoneDevice): Promise<PhoneStatus> {
  if (phone.readings) {
    const readings = await phone.readings().catch(() => null);
    return readings ? { ...readings, answered: true } : { battery: null, screen: null, foreground: null, network: null, answered: false };
  }
  const [battery, screen, foreground, network] = await Promise.allSettled([phone.battery(), phone.screen(), phone.foregroundApp(), phone.network()]);
  const value = <T>(result: PromiseSettledResult<T>): T | null => (result.status === 'fulfilled' ? result.value : null);
  return {
    battery: value(battery),
    screen: value(screen),
    foreground: value(foreground),
    network: value(network),
    answered: [battery, screen, foreground, network].some((result) => result.status === 'fulfilled'),
  };
}
