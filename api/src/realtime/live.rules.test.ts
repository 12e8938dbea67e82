/**
 * The live rules' checks overlap: a keep-alive's check may read a person's role just before a demotion commits and
 * get its answer only after the check the demotion set off has already applied the new role. The older read must not
 * write the old role back (an operator's role kept on a VA's socket lets them take a phone not theirs).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChangeFeed } from '../events/changes.ts';
import type { Db } from '../shared/types.ts';
import { LocalLiveBus } from './live.bus.ts';
import { rightsOf } from './live.queries.ts';
import { LiveRules, type LiveHoldings, type RuledSocket } from './live.rules.ts';

vi.mock('./live.queries.ts', () => ({ rightsOf: vi.fn() }));

type Rights = Awaited<ReturnType<typeof rightsOf>>;

const phone = { id: 'phone-1', workspaceId: 'ws-1', assignedToId: 'someone-else' };
const rightsWith = (role: 'operator' | 'va'): Rights => ({ members: [{ workspaceId: 'ws-1', userId: 'person-1', role }], devices: [phone] });

describe('the live rules, checked twice at once', () => {
  afterEach(() => vi.mocked(rightsOf).mockReset());

  it('keeps the role the later check read when the keep-alive’s earlier read answers last', async () => {
    const socket: RuledSocket = {
      data: { userId: 'person-1', sessionId: 'session-1', workspaceId: 'ws-1', role: 'operator', name: 'Olga' },
      disconnect: vi.fn(),
    };
    const ended: string[] = [];
    const held: LiveHoldings<RuledSocket> = {
      sockets: () => [socket],
      watches: () => [],
      controls: () => [{ socket, deviceId: phone.id, deviceName: 'Pixel 7' }],
      endControl: async (deviceId) => {
        ended.push(deviceId);
      },
      endWatch: async () => undefined,
    };
    const bus = new LocalLiveBus();
    const rules = new LiveRules({} as Db, bus, createChangeFeed(), held, (error) => {
      throw error;
    });

    // The keep-alive reads first and is answered late, with the role from before the demotion.
    let answerKeepAlive: (rights: Rights) => void = () => undefined;
    vi.mocked(rightsOf).mockImplementationOnce(() => new Promise<Rights>((resolve) => (answerKeepAlive = resolve)));
    vi.mocked(rightsOf).mockImplementationOnce(async () => rightsWith('va'));
    const keepAlive = rules.check('ws-1');
    // The demotion's check reads after it commits, and is answered at once: a VA, and the phone is not theirs.
    expect(await rules.check('ws-1')).toBe(1);
    expect(socket.data.role).toBe('va');
    expect(ended).toEqual([phone.id]);

    answerKeepAlive(rightsWith('operator'));
    await keepAlive;
    expect(socket.data.role).toBe('va');
    expect(socket.disconnect).not.toHaveBeenCalled();

    rules.close();
    await bus.close();
  });
});
