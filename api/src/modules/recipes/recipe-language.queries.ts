/**
 * The phones held back by their language: per phone and app, the newest attempt of the last days that ended
 * `language_untested`, where no later run of that app on that phone ended otherwise.
 */
import { sql } from 'kysely';
import type { Db } from '../../shared/types.ts';

export interface LanguageHeldRow {
  deviceId: string;
  deviceName: string;
  appPackage: string;
  appVersion: string;
  /** Null from agents that do not say the app's language. */
  locale: string | null;
  recipeId: string;
  at: Date;
}

/** The phones whose latest run of an app within `days` ended `language_untested`, the newest first. */
export async function languageHeldRows(db: Db, workspaceId: string, days: number): Promise<LanguageHeldRow[]> {
  const { rows } = await sql<LanguageHeldRow>`
    select * from (
      select distinct on (a.device_id, a.app_package)
             a.device_id as "deviceId", d.name as "deviceName", a.app_package as "appPackage",
             coalesce(a.app_version, '') as "appVersion", a.app_locale as locale, a.recipe_id as "recipeId", a.ended_at as at
      from task_attempts a
      join devices d on d.id = a.device_id and d.workspace_id = ${workspaceId}
      where a.workspace_id = ${workspaceId} and a.failure_code = 'language_untested'
        and a.ended_at >= now() - (${days}::int * interval '1 day')
        and a.recipe_id is not null and a.app_package is not null and a.app_package <> ''
        and not exists (
          select 1 from task_attempts later
          where later.device_id = a.device_id and later.workspace_id = ${workspaceId} and later.app_package = a.app_package
            and later.ended_at > a.ended_at and later.outcome in ('completed', 'failed')
            and later.failure_code is distinct from 'language_untested')
      order by a.device_id, a.app_package, a.ended_at desc
    ) held
    order by at desc, "deviceName"`.execute(db);
  return rows;
}
