import type { PhoneSettingsResult } from '@farm/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../../test/render';
import { PhoneSettingsModal } from './PhoneSettingsModal';

const one = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b01';
const two = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b02';

describe('PhoneSettingsModal', () => {
  it('sends what was chosen for the selected phones and shows what came of it on each', async () => {
    const result: PhoneSettingsResult = {
      results: [
        { deviceId: one, name: 'Rack A 1', outcomes: [{ setting: 'wifi', outcome: 'done', detail: null }], error: null, taskId: null },
        { deviceId: two, name: 'Rack A 2', outcomes: [], error: 'Its farm host is not connected.', taskId: null },
      ],
    };
    const calls = stubApi({ 'GET /api/auth/me': { user: buildMe() }, 'GET /api/groups': [], 'POST /api/devices/settings': () => result });
    renderRoutes(<Route path="/" element={<PhoneSettingsModal opened onClose={() => undefined} deviceIds={[one, two]} />} />);

    fireEvent.click(await screen.findByRole('button', { name: 'Apply settings' }));
    expect(await screen.findByText('Choose at least one setting')).toBeTruthy();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    fireEvent.change(screen.getByRole('textbox', { name: /App language: language/ }), { target: { value: 'de' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    expect(await screen.findByText('App must be an app package such as com.instagram.android')).toBeTruthy();
    fireEvent.change(screen.getByRole('textbox', { name: /App language: language/ }), { target: { value: '' } });

    fireEvent.click(screen.getByRole('checkbox', { name: /Turn off automatic updates/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    await waitFor(() => expect(calls.find((call) => call.method === 'POST')).toBeTruthy());
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ deviceIds: [one, two], settings: { autoUpdatesOff: true } });
    expect(await screen.findByText('Wi-Fi: Set')).toBeTruthy();
    expect(screen.getByText('Its farm host is not connected.')).toBeTruthy();
  });
});
