/**
 * The value lists the tables share with the contracts (and the phone protocol), checked at compile time: each column
 * typed by a list must read exactly the list's values, as must the REST shapes that show it. The schema derives its
 * unions from the tuples, so a union written again by hand, or a tuple changed on one side only, fails the type check
 * of this file (`pnpm --filter @farm/sql typecheck`, which `pnpm check` runs); at run time the checks are no-ops.
 */
import type { Selectable } from 'kysely';
import { describe, expectTypeOf, it } from 'vitest';
import type { dryRunModes, traceVerdicts } from '@farm/agent-protocol/dryrun';
import type { failureCodes } from '@farm/agent-protocol/failures';
import type { uiReaderInfo } from '@farm/agent-protocol';
import type { engagementActions } from '@farm/agent-protocol/recipe-schema';
import type {
  accountStatusValues,
  activityTypeValues,
  AppRollout,
  appRolloutActionValues,
  AppRolloutPhone,
  appRolloutPhoneStatusValues,
  appRolloutStatusValues,
  AppVersion,
  appVersionKindValues,
  attemptOutcomeValues,
  campaignPlatformValues,
  campaignStatusValues,
  countedActions,
  DeviceGroup,
  deviceGroupKindValues,
  DeviceSoftware,
  deviceStatusValues,
  DryRun,
  dryRunStatuses,
  followTypeValues,
  platformValues,
  postStatusValues,
  roleValues,
  routineTypeValues,
  swipeGenderValues,
  taskPriorityValues,
  taskStatusValues,
  taskTypeValues,
  TraceStepOut,
  uiReaderKindValues,
  usageModeValues,
  WallGroup,
  webhookDeliveryStatusValues,
} from '@farm/contracts';
import type { DB } from './schema.ts';

/** What a column of a table reads as. */
type Column<T extends keyof DB, C extends keyof Selectable<DB[T]>> = Selectable<DB[T]>[C];
type Of<L extends readonly unknown[]> = L[number];

describe('value lists shared by the tables and the contracts', () => {
  it('people and the activity feed', () => {
    expectTypeOf<Column<'users', 'role'>>().toEqualTypeOf<Of<typeof roleValues>>();
    expectTypeOf<Column<'workspaceMembers', 'role'>>().toEqualTypeOf<Of<typeof roleValues>>();
    expectTypeOf<Column<'invitations', 'role'>>().toEqualTypeOf<Of<typeof roleValues>>();
    expectTypeOf<Column<'activities', 'type'>>().toEqualTypeOf<Of<typeof activityTypeValues>>();
    expectTypeOf<Column<'deviceUsage', 'mode'>>().toEqualTypeOf<Of<typeof usageModeValues>>();
    expectTypeOf<Column<'webhookDeliveries', 'status'>>().toEqualTypeOf<Of<typeof webhookDeliveryStatusValues>>();
  });

  it('phones, groups and what reads their screens', () => {
    expectTypeOf<Column<'devices', 'status'>>().toEqualTypeOf<Of<typeof deviceStatusValues>>();
    expectTypeOf<Column<'deviceTallies', 'status'>>().toEqualTypeOf<Of<typeof deviceStatusValues>>();
    expectTypeOf<Column<'deviceGroups', 'kind'>>().toEqualTypeOf<Of<typeof deviceGroupKindValues>>();
    expectTypeOf<DeviceGroup['kind']>().toEqualTypeOf<Column<'deviceGroups', 'kind'>>();
    expectTypeOf<WallGroup['kind']>().toEqualTypeOf<Column<'deviceGroups', 'kind'>>();
    expectTypeOf<Column<'deviceSoftware', 'uiReader'>>().toEqualTypeOf<Of<typeof uiReaderKindValues> | null>();
    expectTypeOf<NonNullable<DeviceSoftware['uiReader']>['kind']>().toEqualTypeOf<Of<typeof uiReaderKindValues>>();
  });

  it('tasks, their attempts and their tallies', () => {
    expectTypeOf<Column<'tasks', 'type'>>().toEqualTypeOf<Of<typeof taskTypeValues>>();
    expectTypeOf<Column<'tasks', 'priority'>>().toEqualTypeOf<Of<typeof taskPriorityValues>>();
    expectTypeOf<Column<'tasks', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'tasks', 'failureCode'>>().toEqualTypeOf<Of<typeof failureCodes> | null>();
    expectTypeOf<Column<'campaignSessions', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskTallies', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskCreatedCounts', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskFinishedCounts', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskFinishedCounts', 'type'>>().toEqualTypeOf<Of<typeof taskTypeValues>>();
    expectTypeOf<Column<'taskCreatedDays', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskFinishedDays', 'status'>>().toEqualTypeOf<Of<typeof taskStatusValues>>();
    expectTypeOf<Column<'taskFinishedDays', 'type'>>().toEqualTypeOf<Of<typeof taskTypeValues>>();
    expectTypeOf<Column<'taskAttempts', 'outcome'>>().toEqualTypeOf<Of<typeof attemptOutcomeValues> | null>();
  });

  it('campaigns, routines, accounts and posts', () => {
    expectTypeOf<Column<'campaigns', 'platform'>>().toEqualTypeOf<Of<typeof campaignPlatformValues>>();
    expectTypeOf<Column<'campaigns', 'status'>>().toEqualTypeOf<Of<typeof campaignStatusValues>>();
    expectTypeOf<Column<'campaigns', 'followType'>>().toEqualTypeOf<Of<typeof followTypeValues> | null>();
    expectTypeOf<Column<'campaigns', 'autoswipeGenderPreference'>>().toEqualTypeOf<Of<typeof swipeGenderValues> | null>();
    expectTypeOf<Column<'routines', 'type'>>().toEqualTypeOf<Of<typeof routineTypeValues>>();
    expectTypeOf<Column<'accounts', 'platform'>>().toEqualTypeOf<Of<typeof platformValues>>();
    expectTypeOf<Column<'accounts', 'status'>>().toEqualTypeOf<Of<typeof accountStatusValues>>();
    expectTypeOf<Column<'accounts', 'pausedCode'>>().toEqualTypeOf<Of<typeof failureCodes> | null>();
    expectTypeOf<Column<'posts', 'status'>>().toEqualTypeOf<Of<typeof postStatusValues>>();
    expectTypeOf<Column<'workspaceRecipes', 'platform'>>().toEqualTypeOf<Of<typeof platformValues>>();
    expectTypeOf<Column<'workspaceRecipes', 'routines'>>().toEqualTypeOf<Of<typeof routineTypeValues>[]>();
  });

  it('the app library and its rollouts', () => {
    expectTypeOf<Column<'appVersions', 'kind'>>().toEqualTypeOf<Of<typeof appVersionKindValues>>();
    expectTypeOf<AppVersion['kind']>().toEqualTypeOf<Column<'appVersions', 'kind'>>();
    expectTypeOf<Column<'appRollouts', 'action'>>().toEqualTypeOf<Of<typeof appRolloutActionValues>>();
    expectTypeOf<Column<'appRollouts', 'status'>>().toEqualTypeOf<Of<typeof appRolloutStatusValues>>();
    expectTypeOf<Column<'appRolloutPhones', 'status'>>().toEqualTypeOf<Of<typeof appRolloutPhoneStatusValues>>();
    expectTypeOf<AppRollout['action']>().toEqualTypeOf<Column<'appRollouts', 'action'>>();
    expectTypeOf<AppRollout['status']>().toEqualTypeOf<Column<'appRollouts', 'status'>>();
    expectTypeOf<AppRolloutPhone['status']>().toEqualTypeOf<Column<'appRolloutPhones', 'status'>>();
  });

  it('dry runs and their traces', () => {
    expectTypeOf<Column<'recipeDryRuns', 'mode'>>().toEqualTypeOf<Of<typeof dryRunModes>>();
    expectTypeOf<Column<'recipeDryRuns', 'status'>>().toEqualTypeOf<Of<typeof dryRunStatuses>>();
    expectTypeOf<Column<'recipeTraceSteps', 'verdict'>>().toEqualTypeOf<Of<typeof traceVerdicts>>();
    expectTypeOf<DryRun['mode']>().toEqualTypeOf<Column<'recipeDryRuns', 'mode'>>();
    expectTypeOf<DryRun['status']>().toEqualTypeOf<Column<'recipeDryRuns', 'status'>>();
    expectTypeOf<TraceStepOut['verdict']>().toEqualTypeOf<Column<'recipeTraceSteps', 'verdict'>>();
  });

  // Written again on the phones' wire, which the contracts cannot import without the agent's code: held equal here.
  it("the phone protocol's copies", () => {
    expectTypeOf<(typeof uiReaderInfo.shape.kind.options)[number]>().toEqualTypeOf<Of<typeof uiReaderKindValues>>();
    expectTypeOf<Of<typeof engagementActions>>().toEqualTypeOf<Of<typeof countedActions>>();
  });
});
