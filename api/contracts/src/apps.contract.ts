/**
 * The app library and staged rollouts (issue #42): APKs and split sets uploaded per workspace (what each is comes
 * from its files), installed, updated or removed on phones a few at a time, a pinned version per app per group, and
 * the phones whose installed app version no recipe covers.
 */
import { z } from 'zod';
import { id, idFilter, isoTime, nullableTime } from './common.ts';

export const appVersionKindValues = ['apk', 'split_set'] as const;
export const appRolloutActionValues = ['install', 'update', 'remove'] as const;
export const appRolloutStatusValues = ['first_stage', 'rest', 'done', 'stopped'] as const;
export const appRolloutPhoneStatusValues = ['waiting', 'sent', 'succeeded', 'failed', 'skipped'] as const;
export type AppRolloutAction = (typeof appRolloutActionValues)[number];
export type AppRolloutStatus = (typeof appRolloutStatusValues)[number];
export type AppRolloutPhoneStatus = (typeof appRolloutPhoneStatusValues)[number];

/**
 * An Android package name by the Java package rules the package manager applies: two or more segments, each a letter
 * then letters, digits or underscores, 255 characters at most. A name read from an uploaded manifest or sent for a
 * removal reaches the phone's package manager, so nothing else passes.
 */
export const ANDROID_PACKAGE_MAX = 255;
const ANDROID_PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
export function isAndroidPackageName(text: string): boolean {
  return text.length <= ANDROID_PACKAGE_MAX && ANDROID_PACKAGE.test(text);
}
export const androidPackageName = z
  .string()
  .trim()
  .max(ANDROID_PACKAGE_MAX, { message: `Package must be at most ${ANDROID_PACKAGE_MAX} characters` })
  .refine(isAndroidPackageName, { message: 'Package must be an Android package name, like com.instagram.android' });

/** Whether the workspace's recipes (shipped and its own) cover a version of an app, by the coverage rule. */
export const appCoverage = z.object({ covered: z.boolean(), reason: z.string().nullable() });

export const appVersion = z.object({
  id,
  package: z.string(),
  versionCode: z.number().int(),
  /** Null when the APK names it through a resource. */
  versionName: z.string().nullable(),
  minSdk: z.number().int().nullable(),
  /** Processor types the files carry native code for; empty: no native code (runs on any). */
  abis: z.array(z.string()),
  kind: z.enum(appVersionKindValues),
  fileName: z.string(),
  /** Bytes stored, every APK of the set together. */
  size: z.number().int(),
  /** The base first, then the splits (`config.arm64_v8a`). */
  files: z.array(z.object({ name: z.string(), size: z.number().int() })),
  coverage: appCoverage,
  uploadedAt: isoTime,
});
export type AppVersion = z.infer<typeof appVersion>;

export const appPin = z.object({
  groupId: id,
  package: z.string(),
  versionCode: z.number().int(),
  versionName: z.string().nullable(),
  pinnedAt: isoTime,
});
export type AppPin = z.infer<typeof appPin>;

export const appLibrary = z.object({
  versions: z.array(appVersion),
  pins: z.array(appPin),
  /** The largest file an upload may be (APP_UPLOAD_MAX_BYTES). */
  maxUploadBytes: z.number().int(),
});
export type AppLibrary = z.infer<typeof appLibrary>;

/** The upload's file name, for the library's list: what the file is comes from its bytes. */
export const appUploadQuery = z.object({
  fileName: z
    .string({ error: 'File name is required' })
    .trim()
    .min(1, { message: 'File name is required' })
    .max(200, { message: 'File name must be at most 200 characters' }),
});

/** Holds a group's phones at a version of the library: a rollout does not update them past it. */
export const appPinBody = z.object({ groupId: idFilter, versionId: idFilter });
export type AppPinBody = z.input<typeof appPinBody>;
export const appPinParams = z.object({ groupId: z.string(), package: z.string().max(255) });

export const appRolloutPhone = z.object({
  deviceId: id,
  deviceName: z.string(),
  /** 1: the first stage; 2: the rest, sent once the first all succeeded. */
  stage: z.number().int(),
  status: z.enum(appRolloutPhoneStatusValues),
  /**
   * The package manager's code (INSTALL_FAILED_…), or the console's own (`host_offline`); while `sent`, where the
   * job stands on the phone (`waiting_for_task`, `downloading`, `installing`), or null before the host said.
   */
  code: z.string().nullable(),
  /** The result in words; while `sent`, the stage and how long it has run ("Installing on the phone… 40 s"). */
  reason: z.string().nullable(),
  updatedAt: isoTime,
});
export type AppRolloutPhone = z.infer<typeof appRolloutPhone>;

export const appRollout = z.object({
  id,
  action: z.enum(appRolloutActionValues),
  package: z.string(),
  versionId: id.nullable(),
  versionCode: z.number().int().nullable(),
  versionName: z.string().nullable(),
  firstStageSize: z.number().int(),
  allowDowngrade: z.boolean(),
  status: z.enum(appRolloutStatusValues),
  createdAt: isoTime,
  finishedAt: nullableTime,
  phones: z.array(appRolloutPhone),
});
export type AppRollout = z.infer<typeof appRollout>;

export const DEFAULT_FIRST_STAGE = 2;

export const createAppRolloutBody = z
  .object({
    action: z.enum(appRolloutActionValues, { error: 'Action must be install, update or remove' }),
    /** The library's version to install or update to (not for a removal). */
    versionId: idFilter.optional(),
    /** The app to remove (install and update take it from the version). */
    package: androidPackageName.optional(),
    /** Chosen phones, a group's phones, or both together. */
    deviceIds: z.array(idFilter).max(5000).optional(),
    groupId: idFilter.optional(),
    /** Phones in the first stage (default 2); the rest wait until all of them succeeded. */
    firstStageSize: z
      .number({ error: 'First stage must be a number of phones' })
      .int({ message: 'First stage must be a whole number of phones' })
      .min(1, { message: 'First stage must be at least 1 phone' })
      .max(100, { message: 'First stage must be at most 100 phones' })
      .optional(),
    /** Allow a lower version code than the installed one (rolling back). */
    allowDowngrade: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'remove' && !body.package) ctx.addIssue({ code: 'custom', path: ['package'], message: 'Choose the app to remove' });
    if (body.action !== 'remove' && !body.versionId) ctx.addIssue({ code: 'custom', path: ['versionId'], message: 'Choose the version to install' });
    if ((body.deviceIds?.length ?? 0) === 0 && !body.groupId) ctx.addIssue({ code: 'custom', path: ['deviceIds'], message: 'Choose phones or a group' });
  });
export type CreateAppRolloutBody = z.input<typeof createAppRolloutBody>;

/** A phone whose installed version of an app no recipe of the workspace covers. */
export const appCoverageWarning = z.object({
  deviceId: id,
  deviceName: z.string(),
  package: z.string(),
  version: z.string(),
  reason: z.string(),
});
export type AppCoverageWarning = z.infer<typeof appCoverageWarning>;

/** The sentences of the library's refusals, as the API answers them. */
export const appMessages = {
  versionTaken: (packageName: string, versionName: string | null, versionCode: number) =>
    `This workspace's library already has ${packageName}${versionName ? ` ${versionName}` : ''} (version code ${versionCode})`,
  badPackage: (shown: string) =>
    `The APK manifest names the package "${shown}", which is not an Android package name (segments of letters, digits and underscores, each starting with a letter, at least two, at most 255 characters)`,
  tooLarge: (limit: string) => `The file is larger than the ${limit} an app upload may be (APP_UPLOAD_MAX_BYTES)`,
  emptyFile: 'The file is empty',
  versionInUse: 'A rollout of this version is still going on: wait for it to finish, then remove the version',
  pinnedVersionInUse: (groups: string) => `This version is pinned for ${groups}: unpin it first`,
  pinnedPast: (device: string, group: string, packageName: string, pinned: string) =>
    `The phone ${device} is in the group "${group}", which pins ${packageName} at ${pinned}: this rollout would update it past that. Leave the phone out or change the pin.`,
  noPhones: 'The group has no phones yet',
} as const;
