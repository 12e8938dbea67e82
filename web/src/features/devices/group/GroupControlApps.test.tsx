/** The apps group control may drive: the built-in ones named, a package added, a refused one told why under the field. */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, renderScreen, stubApi } from '../../../test/render';
import { GroupControlApps } from './GroupControlApps';

const builtIn = [
  { package: 'com.android.launcher3', name: 'the launcher' },
  { package: 'com.android.settings', name: 'Settings' },
];

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Apps group control may drive', () => {
  it('adds a package, and shows the server’s sentence when it refuses one', async () => {
    let added: string[] = [];
    const calls = stubApi({
      'GET /api/group-control/apps': () => ({ builtIn, added }),
      'PUT /api/group-control/apps': (body) => {
        const next = (body as { added: string[] }).added;
        if (next.includes('com.instagram.android'))
          return answer(400, {
            error: 'Validation failed',
            details: [
              {
                field: 'added.0',
                message: 'Instagram (com.instagram.android) is a social, dating, messaging, video or browser app: group control never drives it.',
              },
            ],
          });
        added = next;
        return { builtIn, added };
      },
    });
    renderScreen(<GroupControlApps />);
    expect(await screen.findByText(/Built in: the launcher, Settings\./)).toBeTruthy();

    const field = screen.getByLabelText('Add an app by its package');
    fireEvent.change(field, { target: { value: 'not a package' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('Write a package name, such as com.example.app')).toBeTruthy();

    fireEvent.change(field, { target: { value: 'com.example.vpn' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('com.example.vpn')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ added: ['com.example.vpn'] });

    fireEvent.change(field, { target: { value: 'com.instagram.android' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(
      await screen.findByText('Instagram (com.instagram.android) is a social, dating, messaging, video or browser app: group control never drives it.'),
    ).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Remove com.example.vpn' }));
    await waitFor(() => expect(calls.filter((call) => call.method === 'PUT').at(-1)?.body).toEqual({ added: [] }));
  });
});
