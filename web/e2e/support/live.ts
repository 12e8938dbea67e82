/**
 * A phone of one's own for the live-screen specs: an operator signed up in the page's context, a phone record with its
 * agent credential, a simulated phone with the real agent, and the phone's Live tab opened from Devices.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { PhoneAgent } from '@farm/agent-protocol';
import { DeviceBackend, type DeviceBackendOptions } from '@farm/agent-protocol/agent';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import { json } from './fake-phone';
import { PASSWORD, unique, uniqueEmail } from './ui';

export interface OwnPhone {
  /** The phone's name in the console. */
  name: string;
  /** Its agent credential. */
  token: string;
}

/** Signs up an operator (`who`, an email made from its first name) and adds a phone named `prefix` plus a suffix. */
export async function operatorWithPhone(page: Page, who: string, prefix: string): Promise<OwnPhone> {
  const email = uniqueEmail(who.split(' ')[0]!.toLowerCase());
  const signup = await page.request.post('/api/auth/signup', { data: { name: who, email, password: PASSWORD, role: 'operator' }, headers: json });
  expect(signup.status()).toBe(201);
  const name = unique(prefix);
  const created = await page.request.post('/api/devices', { data: { name }, headers: json });
  expect(created.status()).toBe(201);
  const device = (await created.json()) as { id: string };
  const issued = await page.request.post(`/api/devices/${device.id}/credentials`, { data: {}, headers: json });
  expect(issued.status()).toBe(201);
  return { name, token: ((await issued.json()) as { token: string }).token };
}

/** The real agent on a simulated 1080 × 2400 phone, connected to the console; `stop()` ends both. */
export async function simulatedAgent(
  baseURL: string,
  token: string,
  serial: string,
  options: Omit<DeviceBackendOptions, 'agentVersion'> = {},
): Promise<{ ui: SimulatedPhoneUi; agent: PhoneAgent; stop(): Promise<void> }> {
  const ui = new SimulatedPhoneUi({ serial, width: 1080, height: 2400 });
  const backend = await new DeviceBackend(ui, { agentVersion: 'e2e/2', ...options }).start();
  const agent = new PhoneAgent({ url: baseURL, token, backend, reconnectionDelayMs: 200 });
  await expect.poll(() => agent.connected, { timeout: 10_000 }).toBe(true);
  return {
    ui,
    agent,
    async stop() {
      agent.close();
      await backend.close();
    },
  };
}

/** Opens the phone's details from Devices and its Live tab; the details dialog. */
export async function openLiveTab(page: Page, name: string): Promise<Locator> {
  await page.goto('/devices');
  const card = page.getByRole('article', { name });
  await card.getByRole('button', { name: `Actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: 'View Details' }).click();
  const dialog = page.getByRole('dialog', { name: `Device: ${name}` });
  await dialog.getByRole('tab', { name: 'Live' }).click();
  return dialog;
}
