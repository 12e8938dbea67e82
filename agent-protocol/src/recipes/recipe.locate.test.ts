import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { uncoveredPoint } from './recipe.locate.ts';
import { parseUiXml } from './recipe.ui.ts';

const node = (id: string, bounds: string, children = '') =>
  `<node index="0" text="" resource-id="com.instagram.android:id/${id}" class="android.widget.FrameLayout" package="com.instagram.android" content-desc="" selected="false" bounds="${bounds}">${children}</node>`;

describe("a popup's tap point", () => {
  it('is a point of the dimmer above the sheet when its centre lies inside the sheet (a real page source, its sheet raised)', () => {
    const xml = readFileSync(new URL('../../test/fixtures/real/instagram/reels-promo-sheet-tall.xml', import.meta.url), 'utf8');
    const screen = parseUiXml(xml);
    const dimmer = screen.nodes.find((item) => item.resourceId.endsWith(':id/background_dimmer'));
    expect(dimmer).toBeDefined();
    expect(uncoveredPoint(screen, dimmer!)).toEqual({ x: 360, y: 259 });
  });

  it('is its centre when nothing is drawn over it', () => {
    const screen = parseUiXml(`<hierarchy rotation="0">${node('root', '[0,0][720,1440]', node('background_dimmer', '[0,39][720,1362]'))}</hierarchy>`);
    expect(uncoveredPoint(screen, screen.nodes[1]!)).toEqual({ x: 360, y: 701 });
  });

  it('is none when the sheet covers all of it (the run presses Back instead)', () => {
    const screen = parseUiXml(
      `<hierarchy rotation="0">${node('root', '[0,0][720,1440]', node('background_dimmer', '[0,39][720,1362]') + node('layout_container_bottom_sheet', '[0,0][720,1440]'))}</hierarchy>`,
    );
    expect(uncoveredPoint(screen, screen.nodes[1]!)).toBeNull();
  });
});
