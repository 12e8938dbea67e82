import { describe, expect, it } from 'vitest';
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';
import { PhoneError } from './phone.device.ts';
import { readPhoneStatus } from './phone.status.ts';

describe('reading a phone for a heartbeat', () => {
  it('reads battery, screen, app in front and network', async () => {
    const phone = new SimulatedPhoneUi({ battery: 41 });
    await phone.launchApp('com.zhiliaoapp.musically');
    expect(await readPhoneStatus(phone)).toEqual({
      battery: { level: 41, charging: false, plugged: null, temperatureC: 29.5 },
      screen: { on: true },
      foreground: { package: 'com.zhiliaoapp.musically', activity: 'com.ss.android.ugc.aweme.splash.SplashActivity' },
      network: { connected: true, transport: 'wifi' },
      answered: true,
    });
  });

  it('keeps the readings that came back and says when none did', async () => {
    const phone = new SimulatedPhoneUi();
    phone.battery = async () => {
      throw new PhoneError('timeout', '"dumpsys battery" got no answer within 10000 ms.');
    };
    const partial = await readPhoneStatus(phone);
    expect([partial.battery, partial.screen, partial.answered]).toEqual([null, { on: true }, true]);
    await phone.close();
    expect(await readPhoneStatus(phone)).toEqual({ battery: null, screen: null, foreground: null, network: null, answered: false });
  });
});
