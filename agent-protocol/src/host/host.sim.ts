/**
 * A farm host's simulated phones (`--backend sim`, the demo farm): each one a simulated phone UI with a serial of its
 * own and a day of its own — its battery drains (faster while it works) and charges on the hub, its screen now and
 * then goes dark.
 */
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';

/** The host's simulated phone number `index` (1, 2, …): `SIM-0001`, a Pixel 8 with some battery left. */
export function simulatedPhone(index: number): SimulatedPhoneUi {
  return new SimulatedPhoneUi({
    serial: `SIM-${String(index).padStart(4, '0')}`,
    model: 'Pixel 8 (simulated)',
    battery: 55 + Math.floor(Math.random() * 45),
  });
}

/**
 * A simulated phone's day: its battery drains (faster while it works) and charges on the hub below a fifth; now and
 * then its screen goes dark for a while, as phones left alone do.
 */
export function simulateLife(ui: SimulatedPhoneUi, random: () => number = Math.random, everyMs = 20_000): () => void {
  const timer = setInterval(() => {
    if (ui.charging) ui.batteryLevel = Math.min(100, ui.batteryLevel + 2);
    else if (random() < 0.6) ui.batteryLevel = Math.max(1, ui.batteryLevel - 1);
    if (ui.batteryLevel <= 20) ui.charging = true;
    if (ui.batteryLevel >= 95) ui.charging = false;
    if (ui.screenOn && random() < 0.05) ui.screenOn = false;
    else if (!ui.screenOn && random() < 0.3) ui.screenOn = true;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
