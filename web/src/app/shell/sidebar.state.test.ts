import { describe, expect, it } from 'vitest';
import { readSidebarExpanded, SIDEBAR_COOKIE_MAX_AGE, writeSidebarExpanded } from './sidebar.state';

describe('sidebar state cookie', () => {
  it('is expanded unless the cookie says false', () => {
    expect(readSidebarExpanded('')).toBe(true);
    expect(readSidebarExpanded('theme=dark; sidebar_state=true')).toBe(true);
    expect(readSidebarExpanded('theme=dark; sidebar_state=false')).toBe(false);
  });

  it('is remembered for 7 days', () => {
    expect(SIDEBAR_COOKIE_MAX_AGE).toBe(604800);
    writeSidebarExpanded(false);
    expect(readSidebarExpanded()).toBe(false);
    writeSidebarExpanded(true);
    expect(readSidebarExpanded()).toBe(true);
  });
});
