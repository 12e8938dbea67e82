/** Rows as the API answers them, for component and store tests: one builder per shape, overridden where a test cares. */
import type { Account, Campaign, Device, Post, Routine, Task } from '@farm/contracts';

const stamp = '2026-03-01T10:00:00.000Z';

export function deviceFixture(overrides: Partial<Device> = {}): Device {
  return {
    id: 'd1',
    name: 'Pixel 1',
    status: 'online',
    battery: 80,
    lastActive: stamp,
    assignedToId: null,
    sessionTime: 0,
    lastSeenAt: stamp,
    agentProtocol: 2,
    hostId: null,
    serial: null,
    model: null,
    androidVersion: null,
    screenOn: true,
    controlledById: null,
    controlledByName: null,
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}

export function taskFixture(overrides: Partial<Task> = {}): Task {
  return {
    id: 't1',
    title: 'Warm up account',
    description: null,
    type: 'warmup',
    priority: 'medium',
    status: 'pending',
    deviceId: null,
    assignedToId: null,
    deadline: null,
    startedAt: null,
    completedAt: null,
    attempt: 0,
    maxAttempts: 3,
    dispatchedAt: null,
    leaseExpiresAt: null,
    nextAttemptAt: null,
    progress: null,
    progressNote: null,
    failureCode: null,
    failureMessage: null,
    postId: null,
    campaignSessionId: null,
    unconfirmedTaskId: null,
    accountId: null,
    handOver: null,
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}

/** The campaign, account, post and routine builders' time (the screens' tests read dates from it). */
const contentStamp = '2025-01-01T00:00:00.000Z';

export function buildCampaign(overrides: Partial<Campaign> = {}): Campaign {
  return {
    id: 'c1',
    name: 'Summer Push',
    platform: 'instagram',
    niche: 'Fitness',
    keywords: ['gym', 'workout', 'protein', 'cardio'],
    referenceAccounts: [],
    engagementTarget: 100,
    status: 'draft',
    customLore: null,
    guidelines: null,
    searchAndLike: false,
    followAccountList: false,
    followFromAccount: false,
    searchKeywords: [],
    searchAndLikeActions: [],
    accountsToFollow: [],
    followTargetAccounts: [],
    followType: null,
    engageCommenters: false,
    engageCommentersActions: [],
    autoLikeEnabled: false,
    autoLikeReferenceImages: [],
    autoLikeGuidelines: null,
    autoswipeEnabled: false,
    autoswipeGenderPreference: null,
    autoswipeAgeMin: 18,
    autoswipeAgeMax: 35,
    autoswipeDistanceMax: 50,
    autoswipeBioKeywords: [],
    activeHoursStart: 9,
    activeHoursEnd: 21,
    cooldownMinutes: 30,
    dailyCaps: {},
    createdById: 'u1',
    createdAt: contentStamp,
    updatedAt: contentStamp,
    accountIds: [],
    groupId: null,
    ...overrides,
  };
}

export function buildAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: 'a1',
    username: 'alpha',
    platform: 'instagram',
    status: 'active',
    deviceId: null,
    profilePicture: null,
    bio: null,
    followers: 0,
    following: 0,
    warmupStartDate: null,
    warmupEndDate: null,
    gender: null,
    age: null,
    birthday: null,
    profileImages: [],
    interests: [],
    sexualOrientation: null,
    relationshipGoal: null,
    pausedCode: null,
    pausedMessage: null,
    createdAt: contentStamp,
    updatedAt: contentStamp,
    ...overrides,
  };
}

export function buildPost(overrides: Partial<Post> = {}): Post {
  return {
    id: 'p1',
    accountId: 'a1',
    campaignId: null,
    caption: 'Morning run by the sea',
    status: 'draft',
    mediaUrls: [],
    hashtags: [],
    scheduledAt: null,
    publishedAt: null,
    failureCode: null,
    failureMessage: null,
    waitingCode: null,
    waitingMessage: null,
    createdById: 'u1',
    createdAt: contentStamp,
    updatedAt: contentStamp,
    ...overrides,
  };
}

export function buildRoutine(overrides: Partial<Routine> = {}): Routine {
  return {
    id: 'r1',
    campaignId: 'c1',
    type: 'warmup',
    platform: 'instagram',
    accountId: 'a1',
    forGroup: false,
    name: 'Warmup',
    intensity: 5,
    duration: 5,
    actions: [],
    settings: { duration: 5, actionCount: 10 },
    sequence: 1,
    isActive: true,
    createdAt: contentStamp,
    ...overrides,
  };
}
