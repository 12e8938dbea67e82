/**
 * Kysely table types for every table of migrations/, written once here and shared by api and workers.
 * Property names are camelCase; the CamelCasePlugin maps them to the snake_case columns.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type TextArray = ColumnType<string[], string[] | undefined, string[]>;
type Json = ColumnType<Record<string, unknown>, string | undefined, string>;

export type Role = 'operator' | 'va';
export type DeviceStatus = 'online' | 'offline' | 'busy' | 'idle';
export type TaskType = 'post' | 'engage' | 'warmup' | 'monitor';
export type TaskPriority = 'high' | 'medium' | 'low';
export type TaskStatus = 'pending' | 'in-progress' | 'completed' | 'failed';
export type ActivityType = 'success' | 'warning' | 'info' | 'error';
export type CampaignStatus = 'draft' | 'active' | 'paused' | 'completed';
export type AccountStatus = 'creation_pending' | 'warmup' | 'active' | 'paused' | 'suspended';
export type PostStatus = 'draft' | 'scheduled' | 'published' | 'failed';
export type Platform = 'tiktok' | 'instagram' | 'facebook' | 'twitter' | 'youtube' | 'tinder';
export type RoutineType = 'basic' | 'warmup' | 'doom_scroll' | 'branch_from_account' | 'create_post' | 'basic_scroll' | 'engage_comments';

export interface WorkspacesTable {
  id: Generated<string>;
  name: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  passwordHash: string;
  name: string;
  role: Role;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WorkspaceMembersTable {
  workspaceId: string;
  userId: string;
  role: Role;
  deactivatedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AuthSessionsTable {
  id: Generated<string>;
  tokenHash: string;
  userId: string;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
  ip: string | null;
  userAgent: string | null;
}

export interface InvitationsTable {
  id: Generated<string>;
  workspaceId: string;
  tokenHash: string;
  role: ColumnType<Role, Role | undefined, Role>;
  email: string | null;
  createdById: string | null;
  expiresAt: Timestamp;
  acceptedAt: NullableTimestamp;
  acceptedById: string | null;
  createdAt: Timestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  workspaceId: string | null;
  actorId: string | null;
  action: string;
  entityType: string;
  entityId: string | null;
  data: Json;
  createdAt: Timestamp;
}

export interface DevicesTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  status: ColumnType<DeviceStatus, DeviceStatus | undefined, DeviceStatus>;
  battery: ColumnType<number, number | undefined, number>;
  lastActive: Timestamp;
  assignedToId: string | null;
  sessionTime: ColumnType<number, number | undefined, number>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface TasksTable {
  id: Generated<string>;
  workspaceId: string;
  title: string;
  description: string | null;
  type: TaskType;
  priority: TaskPriority;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  deviceId: string | null;
  assignedToId: string | null;
  deadline: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  attempt: ColumnType<number, number | undefined, number>;
  dispatchedAt: NullableTimestamp;
  postId: ColumnType<string | null, string | null | undefined, string | null>;
  campaignSessionId: ColumnType<string | null, string | null | undefined, string | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface SessionsTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  vaId: string | null;
  taskId: string | null;
  currentTask: string | null;
  duration: ColumnType<number, number | undefined, number>;
  screenshots: ColumnType<number, number | undefined, number>;
  isActive: ColumnType<boolean, boolean | undefined, boolean>;
  activeSince: NullableTimestamp;
  startedAt: Timestamp;
  endedAt: NullableTimestamp;
}

export interface ActivitiesTable {
  id: Generated<string>;
  workspaceId: string;
  userId: string | null;
  action: string;
  deviceId: string | null;
  type: ColumnType<ActivityType, ActivityType | undefined, ActivityType>;
  createdAt: Timestamp;
}

export interface CampaignsTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  platform: 'instagram' | 'tiktok' | 'tinder';
  niche: string;
  keywords: TextArray;
  referenceAccounts: TextArray;
  engagementTarget: ColumnType<number, number | undefined, number>;
  status: ColumnType<CampaignStatus, CampaignStatus | undefined, CampaignStatus>;
  customLore: string | null;
  guidelines: string | null;
  searchAndLike: ColumnType<boolean, boolean | undefined, boolean>;
  followAccountList: ColumnType<boolean, boolean | undefined, boolean>;
  followFromAccount: ColumnType<boolean, boolean | undefined, boolean>;
  searchKeywords: TextArray;
  searchAndLikeActions: TextArray;
  accountsToFollow: TextArray;
  followTargetAccounts: TextArray;
  followType: 'followers' | 'following' | null;
  engageCommenters: ColumnType<boolean, boolean | undefined, boolean>;
  engageCommentersActions: TextArray;
  autoLikeEnabled: ColumnType<boolean, boolean | undefined, boolean>;
  autoLikeReferenceImages: TextArray;
  autoLikeGuidelines: string | null;
  autoswipeEnabled: ColumnType<boolean, boolean | undefined, boolean>;
  autoswipeGenderPreference: 'men' | 'women' | 'everyone' | null;
  autoswipeAgeMin: ColumnType<number, number | undefined, number>;
  autoswipeAgeMax: ColumnType<number, number | undefined, number>;
  autoswipeDistanceMax: ColumnType<number, number | undefined, number>;
  autoswipeBioKeywords: TextArray;
  createdById: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AccountsTable {
  id: Generated<string>;
  workspaceId: string;
  username: string;
  platform: Platform;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  deviceId: string | null;
  profilePicture: string | null;
  bio: string | null;
  followers: ColumnType<number, number | undefined, number>;
  following: ColumnType<number, number | undefined, number>;
  warmupStartDate: NullableTimestamp;
  warmupEndDate: NullableTimestamp;
  gender: string | null;
  age: number | null;
  birthday: ColumnType<string | null, string | null | undefined, string | null>;
  profileImages: TextArray;
  interests: TextArray;
  sexualOrientation: string | null;
  relationshipGoal: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface RoutinesTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  type: RoutineType;
  platform: string;
  accountId: string | null;
  name: string;
  intensity: ColumnType<number, number | undefined, number>;
  duration: ColumnType<number, number | undefined, number>;
  actions: TextArray;
  settings: Json;
  sequence: ColumnType<number, number | undefined, number>;
  isActive: ColumnType<boolean, boolean | undefined, boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface CampaignSessionsTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  routineId: string | null;
  accountId: string | null;
  sessionId: string | null;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  scheduledAt: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
}

export interface PostsTable {
  id: Generated<string>;
  workspaceId: string;
  accountId: string;
  campaignId: string | null;
  caption: string;
  status: ColumnType<PostStatus, PostStatus | undefined, PostStatus>;
  mediaUrls: TextArray;
  hashtags: TextArray;
  scheduledAt: NullableTimestamp;
  publishedAt: NullableTimestamp;
  createdById: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface CampaignAccountsTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  accountId: string;
  createdAt: Timestamp;
}

export interface StoredObjectsTable {
  key: string;
  workspaceId: string;
  contentType: string | null;
  size: number | null;
  createdById: string | null;
  createdAt: Timestamp;
  uploadedAt: NullableTimestamp;
}

export interface DeviceCredentialsTable {
  deviceId: string;
  workspaceId: string;
  tokenHash: string;
  createdAt: Timestamp;
  lastUsedAt: NullableTimestamp;
}

export interface ScreenshotsTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  sessionId: string | null;
  objectKey: string;
  capturedAt: Timestamp;
}

export interface WallLinksTable {
  id: Generated<string>;
  workspaceId: string;
  name: ColumnType<string, string | undefined, string>;
  tokenHash: string;
  createdById: string | null;
  createdAt: Timestamp;
  revokedAt: NullableTimestamp;
}

export interface DB {
  workspaces: WorkspacesTable;
  users: UsersTable;
  workspaceMembers: WorkspaceMembersTable;
  authSessions: AuthSessionsTable;
  invitations: InvitationsTable;
  auditLog: AuditLogTable;
  devices: DevicesTable;
  tasks: TasksTable;
  sessions: SessionsTable;
  activities: ActivitiesTable;
  campaigns: CampaignsTable;
  accounts: AccountsTable;
  routines: RoutinesTable;
  campaignSessions: CampaignSessionsTable;
  posts: PostsTable;
  campaignAccounts: CampaignAccountsTable;
  storedObjects: StoredObjectsTable;
  deviceCredentials: DeviceCredentialsTable;
  screenshots: ScreenshotsTable;
  wallLinks: WallLinksTable;
}

export type DeviceRow = Selectable<DevicesTable>;
export type TaskRow = Selectable<TasksTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ActivityRow = Selectable<ActivitiesTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type RoutineRow = Selectable<RoutinesTable>;
export type CampaignSessionRow = Selectable<CampaignSessionsTable>;
export type PostRow = Selectable<PostsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewTask = Insertable<TasksTable>;
export type TaskUpdate = Updateable<TasksTable>;
