/** Manage groups: a group's row opens Group control with the group's phones. */
import { fireEvent, screen } from '@testing-library/react';
import { useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../test/render';
import { useAuthStore } from '../auth/auth.store';
import { GroupsModal } from './GroupsModal';

const me = buildMe();

function Opened() {
  return <p>{`Opened ${useLocation().search}`}</p>;
}
const group = { id: 'g1', name: 'Hub 2', kind: 'group', deviceIds: ['d1', 'd2'], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Manage groups', () => {
  it('opens Group control with the group’s phones', async () => {
    useAuthStore.getState().setUser(me);
    stubApi({ 'GET /api/auth/me': { user: me }, 'GET /api/groups': [group], 'GET /api/users': [] });
    renderRoutes(
      <>
        <Route path="/devices" element={<GroupsModal opened onClose={() => undefined} />} />
        <Route path="/devices/group-control" element={<Opened />} />
      </>,
      '/devices',
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Group control: Hub 2' }));
    expect(await screen.findByText('Opened ?group=g1')).toBeTruthy();
  });
});
