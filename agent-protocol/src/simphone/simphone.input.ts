/**
 * What a finger and a keyboard do on the simulated phone: a tap finds the node it lands on and runs what that node
 * does, a vertical swipe scrolls the feed, Reels or a post's videos, typing fills the focused field (Instagram lists
 * accounts as the search is typed), and keys go back, home, delete, search and turn the screen off and on. Each is
 * recorded for tests to read.
 */
import type { KeyName, Point } from '../phone/phone.device.ts';
import type { SimApps } from './simphone.apps.ts';
import { nodesAt, type SimNode } from './simphone.render.ts';
import type { SimState } from './simphone.state.ts';

export class SimInput {
  constructor(
    private readonly state: SimState,
    private readonly apps: SimApps,
  ) {}

  async tap(x: number, y: number): Promise<void> {
    this.state.alive();
    const { apps } = this;
    const where = apps.where;
    // What the finger lands on, then what holds it: the first that reacts takes the tap (a label inside a button).
    const path = nodesAt(apps.tree(), x, y);
    const node = path.find((item) => item.onTap) ?? path.find((item) => item.clickable) ?? null;
    const name = (item: SimNode) => (item.id ? (item.id.split(':id/')[1] ?? item.id) : (item.text ?? item.desc ?? null));
    this.state.taps.push({ x, y, hit: node ? name(node) : null, app: apps.app, screen: where });
    node?.onTap?.();
  }

  async longPress(x: number, y: number, _durationMs: number): Promise<void> {
    await this.tap(x, y);
  }

  async swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    this.state.alive();
    this.state.swipes.push({ from, to, durationMs });
    const vertical = Math.abs(to.y - from.y) >= Math.abs(to.x - from.x);
    if (!vertical) return;
    const step = to.y < from.y ? 1 : -1;
    if (this.apps.systemStack) return this.apps.scrollSystem(step);
    const { api } = this.apps;
    const current = this.apps.current;
    if (!current) return;
    if (current.name === 'reels' && this.apps.app === 'instagram') api.reelIndex = Math.max(0, api.reelIndex + step);
    else if (current.name === 'feed') api.feedIndex = Math.max(0, api.feedIndex + step);
    else if (current.name === 'post') {
      const stack = this.apps.stack;
      if (stack) stack[stack.length - 1] = { ...current, n: Math.max(0, current.n + step) };
    }
  }

  async text(value: string): Promise<void> {
    this.state.alive();
    this.state.typed.push(value);
    const { api } = this.apps;
    const field = api.focused;
    if (field === 'search') {
      api.draft.query += value;
      const current = this.apps.current;
      // Instagram lists accounts as you type; TikTok waits for its Search button.
      if (this.apps.app === 'instagram' && (current?.name === 'search' || current?.name === 'results'))
        this.apps.stack?.splice(-1, 1, { name: 'results', query: api.draft.query });
    } else if (field === 'caption') api.draft.caption += value;
    else if (field === 'comment') api.draft.comment += value;
  }

  /** Empties the focused field, types `value`, and answers what the field holds. */
  async setText(value: string, at?: Point): Promise<string | null> {
    this.state.alive();
    if (at) await this.tap(at.x, at.y);
    const { api } = this.apps;
    const field = api.focused;
    if (field === 'search') api.draft.query = '';
    else if (field === 'caption') api.draft.caption = '';
    else if (field === 'comment') api.draft.comment = '';
    await this.text(value);
    if (field === 'search') return api.draft.query;
    if (field === 'caption') return api.draft.caption;
    if (field === 'comment') return api.draft.comment;
    return null;
  }

  async key(key: KeyName): Promise<void> {
    this.state.alive();
    this.state.keys.push(key);
    const { api } = this.apps;
    if (key === 'back') this.apps.back();
    if (key === 'delete') {
      const field = api.focused;
      if (field === 'search') api.draft.query = api.draft.query.slice(0, -1);
      if (field === 'caption') api.draft.caption = api.draft.caption.slice(0, -1);
      if (field === 'comment') api.draft.comment = api.draft.comment.slice(0, -1);
    }
    if (key === 'home') this.apps.home();
    if (key === 'enter' && api.focused === 'search') {
      api.focused = null;
      this.apps.stack?.splice(-1, 1, { name: 'results', query: api.draft.query });
    }
    if (key === 'power') this.state.screenOn = !this.state.screenOn;
  }

  async wake(): Promise<void> {
    this.state.alive();
    this.state.screenOn = true;
  }
}
