/**
 * A post its phone could not confirm: the phone (a protocol 1 agent on the API's socket, driven by the test) reports
 * `post_unconfirmed`; the post reads "Failed: Not confirmed"; the phone's VA answers "It is up" on My Tasks (the post
 * is published at the time given), and an operator answers "It is not" on Tasks (the phone gets the post again).
 */
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { io, type Socket } from 'socket.io-client';
import { expectToast, PASSWORD, unique, uniqueEmail } from './support/ui';

const json = { 'Content-Type': 'application/json' };

interface Dispatch {
  taskId: string;
  attempt: number;
  title: string;
}

/** A phone's agent speaking protocol 1: it takes every task it is given and reports what the test says. */
class Phone {
  readonly dispatches: Dispatch[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('task.dispatch', (message: Dispatch) => this.dispatches.push(message));
  }

  static async connect(baseURL: string, token: string): Promise<Phone> {
    const socket = io(`${baseURL}/agent`, { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const phone = new Phone(socket);
    expect(await phone.send('agent.hello', { protocol: 1, agentVersion: 'e2e-v1', battery: 88 })).toMatchObject({ ok: true });
    return phone;
  }

  send(event: string, message: unknown): Promise<{ ok: boolean }> {
    return new Promise((resolve) => this.socket.emit(event, message, resolve));
  }

  async dispatched(count: number): Promise<Dispatch> {
    await expect.poll(() => this.dispatches.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    return this.dispatches[count - 1]!;
  }

  close(): void {
    this.socket.disconnect();
  }
}

async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

/** A post due now on the phone's account; its task goes to the phone at once. */
async function duePost(operator: Page, accountId: string, createdById: string, caption: string) {
  return post<{ id: string }>(operator.request, '/api/posts', {
    accountId,
    createdById,
    caption,
    hashtags: [],
    mediaUrls: [],
    status: 'scheduled',
    scheduledAt: new Date().toISOString(),
  });
}

/** `datetime-local` text for a time, in the browser's zone (the test's machine). */
const localInput = (at: Date) => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
};

test('a post its phone could not confirm is answered "It is up" by its VA and "It is not" by an operator', async ({ browser, baseURL }) => {
  const operatorContext = await browser.newContext();
  const operator = await operatorContext.newPage();
  const { user: me } = await post<{ user: { id: string } }>(operator.request, '/api/auth/signup', {
    name: 'Ursula Unconfirmed',
    email: uniqueEmail('ursula'),
    password: PASSWORD,
    role: 'operator',
  });
  const { invitation } = await post<{ invitation: { token: string } }>(operator.request, '/api/invitations', { role: 'va' });
  const vaContext = await browser.newContext();
  const vaPage = await vaContext.newPage();
  const { user: va } = await post<{ user: { id: string } }>(vaPage.request, '/api/auth/signup', {
    name: 'Vance Checker',
    email: uniqueEmail('vance'),
    password: PASSWORD,
    role: 'va',
    inviteToken: invitation.token,
  });

  const device = await post<{ id: string; name: string }>(operator.request, '/api/devices', { name: 'Pixel Unconfirmed', assignedToId: va.id });
  const { token } = await post<{ token: string }>(operator.request, `/api/devices/${device.id}/credentials`, {});
  const username = unique('reels')
    .replace(/[^a-z0-9_.]/gi, '_')
    .toLowerCase();
  const account = await post<{ id: string; username: string }>(operator.request, '/api/accounts', {
    username,
    platform: 'instagram',
    status: 'active',
    deviceId: device.id,
  });
  const phone = await Phone.connect(baseURL!, token);
  const question = `Check whether the post of @${account.username} went up on ${device.name}`;

  try {
    // The VA has My Tasks open when the phone reports.
    await vaPage.goto('/tasks/mine');
    await expect(vaPage.getByLabel(/Connection: Live/)).toBeVisible();

    // First post: the phone publishes it but the app never confirms it.
    const first = await duePost(operator, account.id, me.id, 'Spring drop, first try');
    const firstOut = await phone.dispatched(1);
    await phone.send('task.ack', { taskId: firstOut.taskId, attempt: firstOut.attempt });
    await phone.send('task.result', { taskId: firstOut.taskId, attempt: firstOut.attempt, status: 'failed', failure: { code: 'post_unconfirmed' } });

    await operator.goto('/content');
    const firstCard = operator.getByRole('article').filter({ hasText: 'Spring drop, first try' });
    await expect(firstCard.getByRole('alert')).toHaveText('Failed: Not confirmed');

    // The question reaches the VA without a reload; they saw it go up a minute ago.
    const card = vaPage.getByRole('article', { name: question });
    await expect(card).toBeVisible({ timeout: 8000 });
    const asked = card.getByRole('group', { name: 'Is the post up?' });
    const wentUp = new Date();
    await asked.getByLabel('Went up at (optional)').fill(localInput(wentUp));
    await asked.getByRole('button', { name: 'It is up' }).click();
    await expectToast(vaPage, 'Post Published', 'The post is marked as published.');
    await expect(vaPage.getByRole('region', { name: 'Finished' }).getByRole('article', { name: question })).toBeVisible();
    await expect(card.getByRole('group', { name: 'Is the post up?' })).toHaveCount(0);
    const published = (await (await operator.request.get(`/api/posts/${first.id}`)).json()) as { status: string; publishedAt: string };
    expect(published.status).toBe('published');
    expect(Math.abs(Date.parse(published.publishedAt) - new Date(localInput(wentUp)).getTime())).toBeLessThan(1000);
    await expect(firstCard.getByRole('alert')).toHaveCount(0);

    // Second post: unconfirmed too; an operator answers on Tasks that it is not up, and the phone gets it again.
    const second = await duePost(operator, account.id, me.id, 'Spring drop, second try');
    const secondOut = await phone.dispatched(2);
    await phone.send('task.ack', { taskId: secondOut.taskId, attempt: secondOut.attempt });
    await phone.send('task.result', { taskId: secondOut.taskId, attempt: secondOut.attempt, status: 'failed', failure: { code: 'post_unconfirmed' } });

    await operator.goto('/tasks');
    const pending = operator.getByRole('article', { name: question }).filter({ has: operator.getByRole('group', { name: 'Is the post up?' }) });
    await expect(pending).toBeVisible({ timeout: 8000 });
    await pending.getByRole('button', { name: 'It is not' }).click();
    await expectToast(operator, 'Publishing Again', 'The phone will publish the post again.');

    const again = await phone.dispatched(3);
    expect(again).toMatchObject({ taskId: secondOut.taskId, attempt: 2 });
    await phone.send('task.ack', { taskId: again.taskId, attempt: again.attempt });
    await phone.send('task.result', { taskId: again.taskId, attempt: again.attempt, status: 'completed' });
    await expect.poll(async () => ((await (await operator.request.get(`/api/posts/${second.id}`)).json()) as { status: string }).status).toBe('published');

    // A second answer to a question already answered is refused, in words.
    const answered = (await (await vaPage.request.get('/api/tasks?assignedToId=me')).json()) as { id: string; title: string }[];
    const done = answered.find((task) => task.title === question)!;
    const twice = await vaPage.request.post(`/api/tasks/${done.id}/answer`, { data: { answer: 'not' }, headers: json });
    expect(twice.status()).toBe(409);
    expect(((await twice.json()) as { error: string }).error).toBe('This question was already answered (the task is completed); nothing changed.');
  } finally {
    phone.close();
    await operatorContext.close();
    await vaContext.close();
  }
});
