/**
 * The phones held back by their language (GET /api/recipes/held-by-language): a phone whose latest run of an app in
 * the last week ended `language_untested` is listed with its language, the recipe, the languages it covers and what
 * to do; one that ran the app since is not; operators only, their own workspace only. PGlite, or PostgreSQL with
 * TEST_DB=postgres.
 */
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageHeldPhones } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { bareAgent, duePostTask, enrolledPhone, send, until } from '../realtime/phones.ts';
import { listen } from '../realtime/sockets.ts';

let t: TestApp;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: true, redisUrl: undefined });
  url = await listen(t.app);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.disconnect();
});
afterAll(async () => {
  await t?.close();
});

const recipe = { id: 'instagram.post', version: 1 };
// The top of the shipped Instagram recipes' tested range, as `dumpsys package` reports versionName.
const instagram = { package: 'com.instagram.android', version: '447.0.0.55.81' };

interface Dispatch {
  taskId: string;
  attempt: number;
}

/** A protocol 2 phone of the owner's workspace; `work` gives it a post task, acked. */
async function phone(owner: Client, name: string) {
  const { device, token } = await enrolledPhone(owner, { name });
  const dispatches: Dispatch[] = [];
  const socket = bareAgent(url, token);
  sockets.push(socket);
  socket.on('task.dispatch', (message: Dispatch) => dispatches.push(message));
  await until(async () => socket.connected, 'the phone to connect');
  expect(await send(socket, 'agent.hello', { protocol: 2, agentVersion: 'test-v2', battery: 80, apps: [instagram] })).toMatchObject({ ok: true });
  const work = async (caption: string) => {
    const due = await duePostTask(t, owner, device.id, caption);
    const given = await until(async () => dispatches.find((d) => d.taskId === due.task.id), `the task "${caption}" to be dispatched`);
    await send(socket, 'task.ack', given);
    return given;
  };
  /** The phone's pre-flight found the app in `locale`, a language the recipe does not read. */
  const heldBack = async (caption: string, locale: string) => {
    const given = await work(caption);
    const app = { ...instagram, locale };
    expect(
      await send(socket, 'task.result', {
        ...given,
        status: 'failed',
        failure: { code: 'language_untested', message: `com.instagram.android shows ${locale} on this phone`, recipe, app },
        run: { recipe, app, durationMs: 3_000 },
      }),
    ).toMatchObject({ ok: true });
  };
  const completes = async (caption: string) => {
    const given = await work(caption);
    expect(await send(socket, 'task.result', { ...given, status: 'completed', run: { recipe, app: instagram, durationMs: 30_000 } })).toMatchObject({
      ok: true,
    });
  };
  return { device, heldBack, completes };
}

const held = async (client: Client) => {
  const answer = await client.get<LanguageHeldPhones>('/api/recipes/held-by-language');
  expectStatus(answer, 200);
  return answer.body;
};

describe('the phones held back by their language', () => {
  it('lists a phone whose latest run ended language_untested, with its language, the recipe and what to do', async () => {
    const { operator, va, stranger } = await people(t.app);
    expect(await held(operator)).toEqual({ days: 7, phones: [] });

    const german = await phone(operator, 'Pixel DE');
    const mended = await phone(operator, 'Pixel FR');
    const fine = await phone(operator, 'Pixel EN');
    await german.heldBack('First', 'de-DE');
    // Held back once, then its language was set right: its latest run completed, so it is not listed.
    await mended.heldBack('Second', 'fr-FR');
    await mended.completes('Third');
    await fine.completes('Fourth');

    const list = await until(async () => {
      const answer = await held(operator);
      return answer.phones.length > 0 ? answer : undefined;
    }, 'the held phone to be listed');
    expect(list.phones).toEqual([
      {
        deviceId: german.device.id,
        deviceName: 'Pixel DE',
        locale: 'de-DE',
        recipeId: 'instagram.post',
        recipeName: 'Instagram publish a post',
        appPackage: instagram.package,
        appVersion: instagram.version,
        covered: ['en'],
        at: expect.any(String),
        whatToDo:
          "Set Pixel DE's language to English (en) in the phone's Settings (on Android 13 and later, the app's own language in Settings › Apps), or verify Instagram publish a post on German (de-DE) with a dry run.",
      },
    ]);

    // Operators only; another workspace sees none of it.
    expectStatus(await va.get('/api/recipes/held-by-language'), 403);
    expect(await held(stranger)).toEqual({ days: 7, phones: [] });
  });
});
