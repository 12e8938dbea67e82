import { describe, expect, it } from 'vitest';
import { partsFor, settingsTarget } from './settings.parts';

describe('settingsTarget', () => {
  it('leads every anchor of the one-page Settings to its new address', () => {
    const anchors: Record<string, string> = {
      'profile-title': '/settings/profile',
      'two-factor-title': '/settings/two-factor',
      'sessions-title': '/settings/sessions',
      'workspace-title': '/settings/workspace',
      'retention-title': '/settings/workspace',
      'members-title': '/settings/members',
      'invitations-title': '/settings/invitations',
      'phone-hosts-title': '/settings/hosts',
      'apps-title': '/devices/apps',
      'recipes-title': '/campaigns/recipes',
      'recipe-health-title': '/campaigns/recipes',
      'wall-links-title': '/settings/wall-links',
      'storage-title': '/settings/storage',
      'notifications-title': '/settings/notifications',
      'alerts-title': '/settings/alerts',
      'audit-title': '/settings/audit-log',
    };
    for (const [anchor, path] of Object.entries(anchors)) expect(settingsTarget(`#${anchor}`)).toBe(path);
  });

  it('leads /settings, or an anchor it does not know, to the profile', () => {
    expect(settingsTarget('')).toBe('/settings/profile');
    expect(settingsTarget('#nothing-here')).toBe('/settings/profile');
  });
});

describe('partsFor', () => {
  it("keeps operators' parts from VAs and workspace parts from people without one", () => {
    const slugs = (me: Parameters<typeof partsFor>[0]) => partsFor(me).map((part) => part.slug);
    expect(slugs({ role: 'operator', workspaceId: 'w1' })).toHaveLength(12);
    expect(slugs({ role: 'va', workspaceId: 'w1' })).toEqual(['profile', 'two-factor', 'sessions', 'workspace', 'members', 'notifications']);
    expect(slugs({ role: 'va', workspaceId: null })).toEqual(['profile', 'two-factor', 'sessions']);
  });
});
