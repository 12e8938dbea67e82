/**
 * The demo farm, written once on first start in demo mode: a workspace that looks like a real agency's,
 * with phones in every state, a VA team, a week of work and activity, campaigns, accounts and posts.
 */
import { randomUUID } from 'node:crypto';
import { solidPng } from '@farm/agent-protocol';
import { deviceColumns, type DeviceStatus, type Platform, type PostStatus, type TaskPriority, type TaskStatus, type TaskType } from '@farm/sql';
import { deriveRoutineDuration, settingsFor, type RoutineType } from '@farm/contracts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import type { Db } from '../shared/types.ts';
import { objectPath, type Storage } from '../storage/storage.ts';
import { DEMO_CREDENTIALS, DEMO_VA_PASSWORD, PUBLISHED_DEMO_PASSWORDS } from '../shared/demo-credentials.ts';
import { listDemoPeople, setDemoPasswordHash } from './demo.queries.ts';

/** A small deterministic generator, so every demo farm is the same farm. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return {
    next,
    int: (min: number, max: number) => Math.floor(next() * (max - min + 1)) + min,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

/** Gives every demo person still signing in with a published password this one (a password they chose stays). */
async function replacePublishedPasswords(db: Db, password: string): Promise<void> {
  const hash = await hashPassword(password);
  for (const person of await listDemoPeople(db, DEMO_CREDENTIALS.email)) {
    const published = await Promise.all(PUBLISHED_DEMO_PASSWORDS.map((candidate) => verifyPassword(person.passwordHash, candidate)));
    if (published.some(Boolean)) await setDemoPasswordHash(db, person.id, person.passwordHash, hash);
  }
}

/** Phones in the demo farm; all but the last three get simulated agents when the product starts (demo/phones.ts). */
export const DEMO_PHONE_COUNT = 24;
export const DEMO_PHONES_AWAY = 3;

const VA_NAMES = ['Maria Santos', 'James Okafor', 'Priya Sharma', 'Lucas Moreau', 'Aiko Tanaka', 'Daniel Reyes'];
const TASK_TITLES: Record<TaskType, string[]> = {
  post: ['Publish reel for spring drop', 'Post carousel: behind the scenes', 'Share customer story', 'Upload product teaser'],
  engage: ['Reply to comments on latest post', 'Engage with niche hashtags', 'Like and comment on partner posts', 'Answer DMs from followers'],
  warmup: ['Warm up new account', 'Daily browse session', 'Follow 20 niche accounts', 'Watch stories for 15 minutes'],
  monitor: ['Check account health', 'Review shadowban signals', 'Verify login on device', 'Screenshot analytics page'],
};
const ACTIONS = [
  ['Post published on Instagram', 'success'],
  ['Warm-up session completed', 'success'],
  ['Battery low on device', 'warning'],
  ['Device went offline', 'warning'],
  ['Engagement routine finished', 'success'],
  ['Login challenge on account', 'error'],
  ['Task assigned to VA', 'info'],
  ['Screenshot captured', 'info'],
  ['Session started', 'info'],
  ['Rate limit hit, backing off', 'warning'],
] as const;

/**
 * Seeds the demo workspace unless the demo operator already exists. Answers whether it wrote anything. With a
 * `password` (DEMO_PASSWORD) the demo people get it instead of the published ones, and a farm seeded before with the
 * published ones is moved to it: those passwords are in this repository for anyone to read.
 */
export async function seedDemo(db: Db, storage: Storage, options: { password?: string | undefined; now?: Date } = {}): Promise<boolean> {
  const { password, now = new Date() } = options;
  const existing = await db.selectFrom('users').select('id').where('email', '=', DEMO_CREDENTIALS.email).executeTakeFirst();
  if (existing) {
    if (password) await replacePublishedPasswords(db, password);
    return false;
  }
  const rnd = random(42);
  const ago = (hours: number) => new Date(now.getTime() - hours * 3600_000);
  const operatorHash = await hashPassword(password ?? DEMO_CREDENTIALS.password);
  const vaHash = await hashPassword(password ?? DEMO_VA_PASSWORD);

  // Images are files on disk: written before the transaction, harmless if it rolls back.
  const imageIds = Array.from({ length: 4 }, () => randomUUID());
  const colours: [number, number, number][] = [
    [236, 72, 153],
    [59, 130, 246],
    [16, 185, 129],
    [245, 158, 11],
  ];
  await Promise.all(imageIds.map((id, index) => storage.write(id, solidPng(64, 64, colours[index] ?? [0, 0, 0]))));

  await db.transaction().execute(async (tx) => {
    // The demo's phones are simulated, their screens rebuilt from the recipes' fixtures: the farm lets the shipped
    // templates whose claims no public source shows (the post templates) run on them, as Recipes → Settings shows.
    const workspace = await tx.insertInto('workspaces').values({ name: 'Demo Farm', tryUntestedTemplates: true }).returning('id').executeTakeFirstOrThrow();
    const workspaceId = workspace.id;
    const operator = await tx
      .insertInto('users')
      .values({ email: DEMO_CREDENTIALS.email, passwordHash: operatorHash, name: 'Olivia Grant', role: 'operator', createdAt: ago(24 * 60) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx.insertInto('workspaceMembers').values({ workspaceId, userId: operator.id, role: 'operator' }).execute();
    const vas = await tx
      .insertInto('users')
      .values(
        VA_NAMES.map((name, index) => ({
          email: `${name.split(' ')[0]!.toLowerCase()}@demo.farm`,
          passwordHash: vaHash,
          name,
          role: 'va' as const,
          createdAt: ago(24 * (50 - index)),
        })),
      )
      .returning(['id', 'name'])
      .execute();
    await tx
      .insertInto('workspaceMembers')
      .values(vas.map((va) => ({ workspaceId, userId: va.id, role: 'va' as const })))
      .execute();
    await tx
      .insertInto('storedObjects')
      .values(imageIds.map((key) => ({ key, workspaceId, contentType: 'image/png', size: 80, uploadedAt: now })))
      .execute();

    const statuses: DeviceStatus[] = ['online', 'online', 'busy', 'idle', 'offline', 'online', 'busy', 'idle'];
    const models = ['Pixel 7', 'Galaxy S22', 'Galaxy A54', 'Pixel 6a', 'Redmi Note 12', 'Moto G84'];
    const devices = await tx
      .insertInto('devices')
      .values(
        Array.from({ length: DEMO_PHONE_COUNT }, (_, index) => {
          // Statuses come from agents only: every phone starts offline, and the demo's simulated agents (started with
          // the product) bring most of them online. The last ones stay away: two seen before, one never connected.
          const seenHoursAgo = index === DEMO_PHONE_COUNT - 1 ? null : index >= DEMO_PHONE_COUNT - DEMO_PHONES_AWAY ? rnd.int(5, 60) : rnd.next() * 0.2;
          return {
            workspaceId,
            name: `${models[index % models.length]} #${String(index + 1).padStart(2, '0')}`,
            status: 'offline' as const,
            battery: rnd.int(15, 100),
            lastActive: seenHoursAgo === null ? now : ago(seenHoursAgo),
            lastSeenAt: seenHoursAgo === null ? null : ago(seenHoursAgo),
            agentProtocol: seenHoursAgo === null ? null : 2,
            assignedToId: index < 18 ? vas[index % vas.length]!.id : null,
            sessionTime: rnd.int(2, 60) * 3600,
            createdAt: ago(24 * 40 - index),
          };
        }),
      )
      .returning(deviceColumns)
      .execute();

    const types: TaskType[] = ['post', 'engage', 'warmup', 'monitor'];
    const priorities: TaskPriority[] = ['high', 'medium', 'low'];
    const taskStatuses: TaskStatus[] = ['completed', 'completed', 'completed', 'pending', 'in-progress', 'pending', 'failed', 'completed'];
    const tasks = await tx
      .insertInto('tasks')
      .values(
        Array.from({ length: 80 }, (_, index) => {
          const type = types[index % types.length]!;
          const status = rnd.pick(taskStatuses);
          const device = index % 9 === 0 ? undefined : devices[index % devices.length]!;
          const createdAt = ago(rnd.int(1, 24 * 7));
          return {
            workspaceId,
            title: rnd.pick(TASK_TITLES[type]),
            description: `Follow the ${type} playbook for this account.`,
            type,
            priority: priorities[index % priorities.length]!,
            status,
            deviceId: device?.id ?? null,
            assignedToId: device?.assignedToId ?? null,
            deadline: index % 5 === 0 ? null : new Date(createdAt.getTime() + rnd.int(6, 96) * 3600_000),
            startedAt: status === 'pending' ? null : new Date(createdAt.getTime() + 1800_000),
            completedAt: status === 'completed' || status === 'failed' ? new Date(createdAt.getTime() + rnd.int(1, 5) * 3600_000) : null,
            createdAt,
          };
        }),
      )
      .returningAll()
      .execute();

    // A running session on every busy phone, a paused one on idle phones, and a history of ended ones.
    const sessions = devices.flatMap((device, index) => {
      const task = tasks.find((t) => t.deviceId === device.id && t.status === 'in-progress') ?? tasks.find((t) => t.deviceId === device.id);
      const pattern = statuses[index % statuses.length]!;
      const open =
        index < DEMO_PHONE_COUNT - DEMO_PHONES_AWAY && (pattern === 'busy' || pattern === 'idle')
          ? [
              {
                workspaceId,
                deviceId: device.id,
                vaId: device.assignedToId,
                taskId: task?.id ?? null,
                currentTask: task?.title ?? null,
                duration: pattern === 'idle' ? rnd.int(300, 3000) : rnd.int(60, 1200),
                screenshots: rnd.int(2, 40),
                isActive: pattern === 'busy',
                activeSince: pattern === 'busy' ? ago(rnd.next() * 0.5) : null,
                startedAt: ago(rnd.int(1, 3)),
                endedAt: null,
              },
            ]
          : [];
      const ended = Array.from({ length: 2 }, (_, k) => {
        const startedAt = ago(24 * (k + 1) + index);
        const duration = rnd.int(900, 7200);
        return {
          workspaceId,
          deviceId: device.id,
          vaId: device.assignedToId,
          taskId: null,
          currentTask: task?.title ?? null,
          duration,
          screenshots: rnd.int(5, 80),
          isActive: false,
          activeSince: null,
          startedAt,
          endedAt: new Date(startedAt.getTime() + duration * 1000),
        };
      });
      return [...open, ...ended];
    });
    await tx.insertInto('sessions').values(sessions).execute();

    await tx
      .insertInto('activities')
      .values(
        Array.from({ length: 200 }, (_, index) => {
          const [action, type] = ACTIONS[index % ACTIONS.length]!;
          const device = devices[index % devices.length]!;
          return {
            workspaceId,
            userId: index % 3 === 0 ? operator.id : vas[index % vas.length]!.id,
            action: `${action} (${device.name})`,
            deviceId: device.id,
            type,
            createdAt: ago((index / 200) * 24 * 7),
          };
        }),
      )
      .execute();

    const platforms: Platform[] = [
      'instagram',
      'instagram',
      'tiktok',
      'tiktok',
      'tinder',
      'tinder',
      'instagram',
      'tiktok',
      'facebook',
      'twitter',
      'youtube',
      'instagram',
    ];
    const accountStatuses = [
      'active',
      'active',
      'warmup',
      'active',
      'active',
      'creation_pending',
      'paused',
      'active',
      'active',
      'suspended',
      'active',
      'warmup',
    ] as const;
    const handles = [
      'glow.studio',
      'urban.eats',
      'fitwithkai',
      'dailydrip',
      'sam_outdoors',
      'mia.travels',
      'coffee.lab',
      'beatdrop',
      'homebrewco',
      'techtalk_now',
      'learnwithlee',
      'plantmom.co',
    ];
    const accounts = await tx
      .insertInto('accounts')
      .values(
        platforms.map((platform, index) => ({
          workspaceId,
          username: handles[index]!,
          platform,
          status: accountStatuses[index]!,
          deviceId: devices[index * 2]!.id,
          bio: index % 4 === 3 ? null : `Official account of ${handles[index]!.replace(/[._]/g, ' ')}.`,
          followers: rnd.int(120, 48_000),
          following: rnd.int(50, 1_200),
          warmupStartDate: accountStatuses[index] === 'warmup' ? ago(24 * 3) : null,
          ...(platform === 'tinder'
            ? {
                gender: index === 4 ? 'man' : 'woman',
                age: index === 4 ? 29 : 26,
                birthday: index === 4 ? '1997-03-14' : '2000-08-02',
                profileImages: imageIds.slice(index === 4 ? 0 : 2, index === 4 ? 2 : 4).map(objectPath),
                interests: ['hiking', 'coffee', 'live music'],
                sexualOrientation: 'straight',
                relationshipGoal: 'long-term',
              }
            : {}),
          createdAt: ago(24 * (30 - index)),
        })),
      )
      .returningAll()
      .execute();

    const campaigns = await tx
      .insertInto('campaigns')
      .values([
        {
          workspaceId,
          name: 'Spring Skincare Launch',
          platform: 'instagram',
          niche: 'Beauty',
          keywords: ['skincare', 'glowup', 'selfcare', 'spring'],
          referenceAccounts: ['glossier', 'theordinary'],
          engagementTarget: 150,
          status: 'active',
          searchAndLike: true,
          searchKeywords: ['skincare routine'],
          searchAndLikeActions: ['like', 'comment'],
          createdById: operator.id,
          createdAt: ago(24 * 12),
        },
        {
          workspaceId,
          name: 'Street Food Trends',
          platform: 'tiktok',
          niche: 'Food',
          keywords: ['streetfood', 'foodtok', 'recipes'],
          referenceAccounts: [],
          engagementTarget: 200,
          status: 'active',
          engageCommenters: true,
          engageCommentersActions: ['like', 'follow'],
          createdById: operator.id,
          createdAt: ago(24 * 9),
        },
        {
          workspaceId,
          name: 'Dating Profile Test',
          platform: 'tinder',
          niche: 'Lifestyle',
          keywords: ['outdoors', 'coffee'],
          referenceAccounts: [],
          engagementTarget: 60,
          status: 'paused',
          autoswipeEnabled: true,
          autoswipeGenderPreference: 'women',
          autoswipeAgeMin: 24,
          autoswipeAgeMax: 34,
          autoswipeDistanceMax: 25,
          autoswipeBioKeywords: ['hiking', 'travel'],
          createdById: operator.id,
          createdAt: ago(24 * 6),
        },
        {
          workspaceId,
          name: 'Fitness Challenge Q3',
          platform: 'instagram',
          niche: 'Fitness',
          keywords: [],
          referenceAccounts: ['fitwithkai'],
          engagementTarget: 100,
          status: 'draft',
          createdById: operator.id,
          createdAt: ago(24 * 2),
        },
      ])
      .returningAll()
      .execute();

    const [skincare, food, dating] = campaigns as [(typeof campaigns)[number], (typeof campaigns)[number], (typeof campaigns)[number]];
    const links = [
      [skincare, accounts[0]!],
      [skincare, accounts[1]!],
      [food, accounts[2]!],
      [food, accounts[3]!],
      [dating, accounts[4]!],
    ] as const;
    await tx
      .insertInto('campaignAccounts')
      .values(links.map(([c, a]) => ({ workspaceId, campaignId: c.id, accountId: a.id })))
      .execute();

    const routinePlan: [typeof skincare, (typeof accounts)[number], RoutineType][] = [
      [skincare, accounts[0]!, 'warmup'],
      [skincare, accounts[0]!, 'create_post'],
      [skincare, accounts[1]!, 'engage_comments'],
      [food, accounts[2]!, 'doom_scroll'],
      [food, accounts[3]!, 'branch_from_account'],
      [dating, accounts[4]!, 'basic_scroll'],
    ];
    const sequences = new Map<string, number>();
    const routines = await tx
      .insertInto('routines')
      .values(
        routinePlan.map(([c, a, type]) => {
          const sequence = (sequences.get(c.id) ?? 0) + 1;
          sequences.set(c.id, sequence);
          const settings = settingsFor(type);
          return {
            workspaceId,
            campaignId: c.id,
            type,
            platform: c.platform,
            accountId: a.id,
            name: type.replace(/_/g, ' ').replace(/\b\w/g, (l) => l.toUpperCase()),
            duration: deriveRoutineDuration(type, settings),
            settings: JSON.stringify(settings),
            sequence,
          };
        }),
      )
      .returningAll()
      .execute();

    await tx
      .insertInto('campaignSessions')
      .values(
        routines.flatMap((routine, index) => [
          {
            workspaceId,
            campaignId: routine.campaignId,
            routineId: routine.id,
            accountId: routine.accountId,
            status: 'completed' as const,
            scheduledAt: ago(24 + index),
            startedAt: ago(24 + index),
            completedAt: ago(23 + index),
          },
          {
            workspaceId,
            campaignId: routine.campaignId,
            routineId: routine.id,
            accountId: routine.accountId,
            status: 'pending' as const,
            scheduledAt: new Date(now.getTime() + (index + 2) * 3600_000),
          },
        ]),
      )
      .execute();

    const captions = [
      'Morning routine that changed my skin ✨ Which step do you skip?',
      'Three street tacos you need to try this weekend 🌮',
      'Behind the scenes of our spring shoot',
      'Our top 5 tips for staying consistent',
      'New drop coming Friday. Set your reminders!',
      'What would you like to see next? Tell us below 👇',
      'Throwback to our first market stall',
      'Tag someone who needs this today',
    ];
    const postStatuses: PostStatus[] = ['draft', 'scheduled', 'published', 'failed', 'published', 'scheduled', 'draft', 'published'];
    await tx
      .insertInto('posts')
      .values(
        captions.map((caption, index) => {
          const status = postStatuses[index]!;
          const account = accounts[index % 4]!;
          return {
            workspaceId,
            accountId: account.id,
            campaignId: index < 4 ? (account.platform === 'tiktok' ? food.id : skincare.id) : null,
            caption,
            status,
            hashtags: ['#demo', index % 2 ? '#growth' : '#behindthescenes'],
            scheduledAt: status === 'scheduled' ? new Date(now.getTime() + (index + 1) * 6 * 3600_000) : null,
            publishedAt: status === 'published' ? ago(index * 10) : null,
            createdById: operator.id,
            createdAt: ago(48 + index * 5),
          };
        }),
      )
      .execute();
  });
  return true;
}
