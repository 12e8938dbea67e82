/**
 * Group control's allowlist as operators see and extend it: the built-in setup apps, and packages they add, each
 * checked against the refused ones (a built-in social, dating, messaging, video or browser app, or one a recipe of the
 * workspace drives). A change is audited and said in the feed.
 */
import { cannotAdd, GROUP_ALLOWLIST } from '@farm/agent-protocol';
import type { GroupControlApps, GroupControlAppsBody } from '@farm/contracts';
import type { Actor } from '../../shared/types.ts';
import { badRequest } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { groupListsOf, setGroupControlPackages } from './group-control.queries.ts';

const builtIn = Object.entries(GROUP_ALLOWLIST).map(([name, named]) => ({ package: name, name: named.name }));

export async function groupControlApps(ctx: WriteContext, actor: Actor): Promise<GroupControlApps> {
  const lists = await groupListsOf(ctx.db, actor.workspaceId);
  return { builtIn, added: lists.added };
}

export async function setGroupControlApps(ctx: WriteContext, actor: Actor, body: GroupControlAppsBody): Promise<GroupControlApps> {
  const added = [...new Set(body.added)];
  const { recipePackages } = await groupListsOf(ctx.db, actor.workspaceId);
  for (const [index, name] of added.entries()) {
    const why = cannotAdd(name, recipePackages);
    if (why) throw badRequest(`added.${index}`, why);
  }
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const before = await setGroupControlPackages(tx, actor.workspaceId, added);
    const gained = added.filter((name) => !before.includes(name));
    const lost = before.filter((name) => !added.includes(name));
    if (gained.length === 0 && lost.length === 0) return;
    const said = [gained.length > 0 ? `added ${gained.join(', ')}` : '', lost.length > 0 ? `removed ${lost.join(', ')}` : ''].filter(Boolean).join('; ');
    await outbox.record(
      { userId: actor.userId, action: `Group control's apps: ${said}`, type: 'info' },
      { action: 'group_control.apps', entityType: 'workspace', entityId: actor.workspaceId, data: { added: gained, removed: lost } },
    );
  });
  return { builtIn, added };
}
