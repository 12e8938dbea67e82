-- The SQL of workers/src/tasks/lifecycle.ts: its query functions, called with the fixed arguments of
-- workers/test/queries/lifecycle.cases.ts on a database that only compiles (@farm/sql/snapshot).
-- Written by `pnpm sql:snapshots`; CI fails when this file differs (`pnpm check:sql`).
-- A statement answered with rows says so; the others were answered with none.
-- The clock stands at 2025-01-15T12:00:00.000Z; Math.random() answers 0.5 (a retry's jitter at its middle).
-- Fixed ids: workspace 11111111-1111-4111-8111-111111111111, devices 22222222-2222-4222-8222-222222222222 and 22222222-2222-4222-8222-000000000002,
-- tasks 33333333-3333-4333-8333-333333333333 and 33333333-3333-4333-8333-000000000002, post 44444444-4444-4444-8444-444444444444,
-- account 55555555-5555-4555-8555-555555555555, campaign run 66666666-6666-4666-8666-666666666666.
-- The automation's settings are the defaults.

-- createTasks(tx, [{ workspaceId: '11111111-1111-4111-8111-111111111111', title: 'Morning likes', type: 'engage', priority: 'medium', deviceId: '22222222-2222-4222-8222-222222222222', work: work(basic routine on Instagram), sourceKey: 'routine:33333333-3333-4333-8333-333333333333' }], Outboxes)
-- phone work a shipped recipe does: the task alone
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = 'Morning likes'
--   $3 = null
--   $4 = 'engage'
--   $5 = 'medium'
--   $6 = '22222222-2222-4222-8222-222222222222'
--   $7 = null
--   $8 = null
--   $9 = '{"kind":"routine.run","routineType":"basic","routineName":"Morning likes","platform":"instagram","account":{"id":"55555555-5555-4555-8555-555555555555","username":"acme","platform":"instagram"},"durationMinutes":5,"intensity":3,"actions":["like"],"keywords":[],"referenceAccounts":[],"settings":{},"allowance":{"likes":20,"follows":0,"comments":0,"posts":0},"campaign":null,"recipe":null}'
--   $10 = 300
--   $11 = 'routine:33333333-3333-4333-8333-333333333333'
--   $12 = null
--   $13 = null
--   $14 = null
--   $15 = null
--   $16 = null
--   $17 = 3
insert into "tasks" ("workspace_id", "title", "description", "type", "priority", "device_id", "assigned_to_id", "deadline", "work", "expected_seconds", "source_key", "post_id", "campaign_session_id", "account_id", "unconfirmed_task_id", "hand_over", "max_attempts")
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
on conflict ("source_key") do nothing
returning *;

-- createTasks(tx, [{ workspaceId: '11111111-1111-4111-8111-111111111111', title: 'Evening likes', type: 'engage', priority: 'low', deviceId: '22222222-2222-4222-8222-222222222222', work: work(basic routine on YouTube), sourceKey: 'routine:33333333-3333-4333-8333-000000000002' }], Outboxes)
-- phone work no shipped recipe does: the workspace's recipes for it, and with none the task is a person's
-- 1 of 2
--   $1 = ['11111111-1111-4111-8111-111111111111']
--   $2 = ['youtube']
--   $3 = ['basic']
--   $4 = 20
select
  k.n,
  r.id,
  r.body::text as body
from unnest($1::uuid[], $2::text[], $3::text[]) with ordinality as k(workspace_id, platform, routine, n)
  cross join lateral (
    select
      id,
      body,
      version
    from workspace_recipes
    where
      workspace_id = k.workspace_id
      and platform = k.platform
      and enabled
      and k.routine = any(routines)
    order by version desc
    limit $4
  ) r
order by
  k.n,
  r.version desc;

-- 2 of 2
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = 'Evening likes (by hand)'
--   $3 = 'No recipe automates engagement on YouTube: do this on the phone by hand, then mark the task done.\n\nRoutine basic (Evening likes) on youtube as @acme, about 5 min, intensity 3.\nActions: like.\nAllowed today: 20 likes, 0 follows, 0 comments.'
--   $4 = 'engage'
--   $5 = 'low'
--   $6 = '22222222-2222-4222-8222-222222222222'
--   $7 = null
--   $8 = null
--   $9 = '{"kind":"manual","description":"No recipe automates engagement on YouTube: do this on the phone by hand, then mark the task done.\\n\\nRoutine basic (Evening likes) on youtube as @acme, about 5 min, intensity 3.\\nActions: like.\\nAllowed today: 20 likes, 0 follows, 0 comments."}'
--   $10 = 300
--   $11 = 'routine:33333333-3333-4333-8333-000000000002'
--   $12 = null
--   $13 = null
--   $14 = null
--   $15 = null
--   $16 = null
--   $17 = 3
insert into "tasks" ("workspace_id", "title", "description", "type", "priority", "device_id", "assigned_to_id", "deadline", "work", "expected_seconds", "source_key", "post_id", "campaign_session_id", "account_id", "unconfirmed_task_id", "hand_over", "max_attempts")
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
on conflict ("source_key") do nothing
returning *;

-- readyWork(db)
-- every phone's ready tasks (the builder, compiled)
--   $1 = 'pending'
--   $2 = 'pending'
--   $3 = 'in-progress'
select
from "tasks" as "t"
where
  "t"."status" = $1
  and "t"."dispatched_at" is null
  and "t"."source_key" is not null
  and t.work->>'kind' is distinct from 'manual'
  and ("t"."next_attempt_at" is null or "t"."next_attempt_at" <= now())
  and not exists (
    select "o"."id"
    from "tasks" as "o"
    where
      "o"."device_id" = "t"."device_id"
      and "o"."dispatched_at" is not null
      and "o"."status" in ($2, $3)
  )
  and not exists (
    select "d"."id"
    from "devices" as "d"
    where
      "d"."id" = "t"."device_id"
      and "d"."controlled_by_id" is not null
  )
  and not exists (
    select 1
    from recipe_dry_runs dr
    where
      dr.device_id = "t"."device_id"
      and dr.status in ('starting', 'running')
  )
  and not exists (
    select 1
    from recipe_breakers b
    where
      b.workspace_id = t.workspace_id
      and b.paused
      and (t.work->>'kind' in ('post.publish', 'routine.run') and (case t.work->>'kind' when 'post.publish' then t.work->'account'->>'platform' else t.work->>'platform' end) = b.platform and (case t.work->>'kind' when 'post.publish' then 'create_post' else t.work->>'routineType' end) = any(b.routines) and exists (
        select 1
        from device_software s
        where
          s.device_id = t.device_id
          and s.apps @> jsonb_build_array(jsonb_build_object('package', b.package, 'version', b.app_version))
      ))
  );

-- readyWork(db, '22222222-2222-4222-8222-222222222222')
-- one phone's ready tasks (the builder, compiled)
--   $1 = 'pending'
--   $2 = '22222222-2222-4222-8222-222222222222'
--   $3 = 'pending'
--   $4 = 'in-progress'
--   $5 = '22222222-2222-4222-8222-222222222222'
--   $6 = '22222222-2222-4222-8222-222222222222'
--   $7 = '22222222-2222-4222-8222-222222222222'
select
from "tasks" as "t"
where
  "t"."status" = $1
  and "t"."dispatched_at" is null
  and "t"."source_key" is not null
  and t.work->>'kind' is distinct from 'manual'
  and ("t"."next_attempt_at" is null or "t"."next_attempt_at" <= now())
  and not exists (
    select "o"."id"
    from "tasks" as "o"
    where
      "o"."device_id" = $2
      and "o"."dispatched_at" is not null
      and "o"."status" in ($3, $4)
  )
  and not exists (
    select "d"."id"
    from "devices" as "d"
    where
      "d"."id" = $5
      and "d"."controlled_by_id" is not null
  )
  and not exists (
    select 1
    from recipe_dry_runs dr
    where
      dr.device_id = $6
      and dr.status in ('starting', 'running')
  )
  and not exists (
    select 1
    from recipe_breakers b
    where
      b.workspace_id = t.workspace_id
      and b.paused
      and (t.work->>'kind' in ('post.publish', 'routine.run') and (case t.work->>'kind' when 'post.publish' then t.work->'account'->>'platform' else t.work->>'platform' end) = b.platform and (case t.work->>'kind' when 'post.publish' then 'create_post' else t.work->>'routineType' end) = any(b.routines) and exists (
        select 1
        from device_software s
        where
          s.device_id = t.device_id
          and s.apps @> jsonb_build_array(jsonb_build_object('package', b.package, 'version', b.app_version))
      ))
  )
  and "t"."device_id" = $7;

-- dispatchNext(db, '22222222-2222-4222-8222-222222222222')
--   $1 = 10000
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = ['22222222-2222-4222-8222-222222222222']
--   $6 = 'pending'
--   $7 = 'pending'
--   $8 = 'in-progress'
--   $9 = 1
--   $10 = null
--   $11 = null
with
  "leased" as (
    update "tasks"
    set
      "attempt" = attempt + 1,
      "dispatched_at" = now(),
      "lease_expires_at" = now() + ($1 * interval '1 millisecond'),
      "next_attempt_at" = $2,
      "progress" = $3,
      "progress_note" = $4
    where
      "id" in (
        select "n"."id"
        from unnest($5::uuid[]) as "p"
          inner join lateral (
            select "t"."id"
            from "tasks" as "t"
            where
              "t"."status" = $6
              and "t"."dispatched_at" is null
              and "t"."source_key" is not null
              and t.work->>'kind' is distinct from 'manual'
              and ("t"."next_attempt_at" is null or "t"."next_attempt_at" <= now())
              and not exists (
                select "o"."id"
                from "tasks" as "o"
                where
                  "o"."device_id" = "p"."p"
                  and "o"."dispatched_at" is not null
                  and "o"."status" in ($7, $8)
              )
              and not exists (
                select "d"."id"
                from "devices" as "d"
                where
                  "d"."id" = "p"."p"
                  and "d"."controlled_by_id" is not null
              )
              and not exists (
                select 1
                from recipe_dry_runs dr
                where
                  dr.device_id = "p"."p"
                  and dr.status in ('starting', 'running')
              )
              and not exists (
                select 1
                from recipe_breakers b
                where
                  b.workspace_id = t.workspace_id
                  and b.paused
                  and (t.work->>'kind' in ('post.publish', 'routine.run') and (case t.work->>'kind' when 'post.publish' then t.work->'account'->>'platform' else t.work->>'platform' end) = b.platform and (case t.work->>'kind' when 'post.publish' then 'create_post' else t.work->>'routineType' end) = any(b.routines) and exists (
                    select 1
                    from device_software s
                    where
                      s.device_id = t.device_id
                      and s.apps @> jsonb_build_array(jsonb_build_object('package', b.package, 'version', b.app_version))
                  ))
              )
              and "t"."device_id" = "p"."p"
            order by
              case t.priority when 'high' then 0 when 'medium' then 1 else 2 end,
              "t"."created_at",
              "t"."id"
            limit $9
            for update skip locked
          ) as "n" on true
      )
    returning *
  ),
  "given" as (
    insert into "task_attempts" ("task_id", "attempt", "workspace_id", "device_id")
    select
      "leased"."id",
      "leased"."attempt",
      "leased"."workspace_id",
      "leased"."device_id"
    from "leased"
    returning "task_attempts"."task_id"
  ),
  "woken" as (
    update "posts"
    set
      "waiting_code" = $10,
      "waiting_message" = $11
    from "leased"
    where
      "posts"."id" = "leased"."post_id"
      and "posts"."waiting_message" is not null
    returning "posts"."id"
  )
select
  "leased".*,
  (
    select "woken"."id"
    from "woken"
    where "woken"."id" = "leased"."post_id"
  ) as "woken_post_id"
from "leased";

-- dispatchMany(db, ['22222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-000000000002'], Outboxes)
-- one lease whose post was waiting: the post is read to announce it
-- 1 of 2, answered with 1 row
--   $1 = 10000
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = ['22222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-000000000002']
--   $6 = 'pending'
--   $7 = 'pending'
--   $8 = 'in-progress'
--   $9 = 1
--   $10 = null
--   $11 = null
with
  "leased" as (
    update "tasks"
    set
      "attempt" = attempt + 1,
      "dispatched_at" = now(),
      "lease_expires_at" = now() + ($1 * interval '1 millisecond'),
      "next_attempt_at" = $2,
      "progress" = $3,
      "progress_note" = $4
    where
      "id" in (
        select "n"."id"
        from unnest($5::uuid[]) as "p"
          inner join lateral (
            select "t"."id"
            from "tasks" as "t"
            where
              "t"."status" = $6
              and "t"."dispatched_at" is null
              and "t"."source_key" is not null
              and t.work->>'kind' is distinct from 'manual'
              and ("t"."next_attempt_at" is null or "t"."next_attempt_at" <= now())
              and not exists (
                select "o"."id"
                from "tasks" as "o"
                where
                  "o"."device_id" = "p"."p"
                  and "o"."dispatched_at" is not null
                  and "o"."status" in ($7, $8)
              )
              and not exists (
                select "d"."id"
                from "devices" as "d"
                where
                  "d"."id" = "p"."p"
                  and "d"."controlled_by_id" is not null
              )
              and not exists (
                select 1
                from recipe_dry_runs dr
                where
                  dr.device_id = "p"."p"
                  and dr.status in ('starting', 'running')
              )
              and not exists (
                select 1
                from recipe_breakers b
                where
                  b.workspace_id = t.workspace_id
                  and b.paused
                  and (t.work->>'kind' in ('post.publish', 'routine.run') and (case t.work->>'kind' when 'post.publish' then t.work->'account'->>'platform' else t.work->>'platform' end) = b.platform and (case t.work->>'kind' when 'post.publish' then 'create_post' else t.work->>'routineType' end) = any(b.routines) and exists (
                    select 1
                    from device_software s
                    where
                      s.device_id = t.device_id
                      and s.apps @> jsonb_build_array(jsonb_build_object('package', b.package, 'version', b.app_version))
                  ))
              )
              and "t"."device_id" = "p"."p"
            order by
              case t.priority when 'high' then 0 when 'medium' then 1 else 2 end,
              "t"."created_at",
              "t"."id"
            limit $9
            for update skip locked
          ) as "n" on true
      )
    returning *
  ),
  "given" as (
    insert into "task_attempts" ("task_id", "attempt", "workspace_id", "device_id")
    select
      "leased"."id",
      "leased"."attempt",
      "leased"."workspace_id",
      "leased"."device_id"
    from "leased"
    returning "task_attempts"."task_id"
  ),
  "woken" as (
    update "posts"
    set
      "waiting_code" = $10,
      "waiting_message" = $11
    from "leased"
    where
      "posts"."id" = "leased"."post_id"
      and "posts"."waiting_message" is not null
    returning "posts"."id"
  )
select
  "leased".*,
  (
    select "woken"."id"
    from "woken"
    where "woken"."id" = "leased"."post_id"
  ) as "woken_post_id"
from "leased";

-- 2 of 2
--   $1 = '44444444-4444-4444-8444-444444444444'
select *
from "posts"
where "id" in ($1);

-- ackTask(db, '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 1)
--   $1 = 'in-progress'
--   $2 = 120000
--   $3 = ['33333333-3333-4333-8333-333333333333']
--   $4 = ['22222222-2222-4222-8222-222222222222']
--   $5 = [1]
--   $6 = 'pending'
with
  "acked" as (
    update "tasks"
    set
      "status" = $1,
      "started_at" = coalesce(started_at, now()),
      "last_progress_at" = now(),
      "lease_expires_at" = least(now() + ($2 * interval '1 millisecond'), coalesce(started_at, now()) + ((expected_seconds * 1000 + greatest(300000, expected_seconds * 1000)) * interval '1 millisecond'))
    where
      (id, device_id, attempt) in (
        select *
        from unnest($3::uuid[], $4::uuid[], $5::int[])
      )
      and "status" = $6
      and "dispatched_at" is not null
    returning *
  ),
  "attempt" as (
    update "task_attempts"
    set "acked_at" = now()
    from "acked"
    where
      "task_attempts"."task_id" = "acked"."id"
      and "task_attempts"."attempt" = "acked"."attempt"
    returning "task_attempts"."task_id"
  )
select "acked".*
from "acked";

-- ackTasks(db, [{ deviceId: '22222222-2222-4222-8222-222222222222', taskId: '33333333-3333-4333-8333-333333333333', attempt: 1 }, { deviceId: '22222222-2222-4222-8222-000000000002', taskId: '33333333-3333-4333-8333-000000000002', attempt: 2 }])
--   $1 = 'in-progress'
--   $2 = 120000
--   $3 = ['33333333-3333-4333-8333-333333333333', '33333333-3333-4333-8333-000000000002']
--   $4 = ['22222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-000000000002']
--   $5 = [1, 2]
--   $6 = 'pending'
with
  "acked" as (
    update "tasks"
    set
      "status" = $1,
      "started_at" = coalesce(started_at, now()),
      "last_progress_at" = now(),
      "lease_expires_at" = least(now() + ($2 * interval '1 millisecond'), coalesce(started_at, now()) + ((expected_seconds * 1000 + greatest(300000, expected_seconds * 1000)) * interval '1 millisecond'))
    where
      (id, device_id, attempt) in (
        select *
        from unnest($3::uuid[], $4::uuid[], $5::int[])
      )
      and "status" = $6
      and "dispatched_at" is not null
    returning *
  ),
  "attempt" as (
    update "task_attempts"
    set "acked_at" = now()
    from "acked"
    where
      "task_attempts"."task_id" = "acked"."id"
      and "task_attempts"."attempt" = "acked"."attempt"
    returning "task_attempts"."task_id"
  )
select "acked".*
from "acked";

-- progressTask(db, '22222222-2222-4222-8222-222222222222', { taskId: '33333333-3333-4333-8333-333333333333', attempt: 2, percent: 41.6, note: 'Liked 8 of 20' })
--   $1 = 120000
--   $2 = 42
--   $3 = 'Liked 8 of 20'
--   $4 = '33333333-3333-4333-8333-333333333333'
--   $5 = '22222222-2222-4222-8222-222222222222'
--   $6 = 2
--   $7 = 'in-progress'
update "tasks"
set
  "last_progress_at" = now(),
  "lease_expires_at" = least(now() + ($1 * interval '1 millisecond'), coalesce(started_at, now()) + ((expected_seconds * 1000 + greatest(300000, expected_seconds * 1000)) * interval '1 millisecond')),
  "progress" = $2,
  "progress_note" = $3
where
  "id" = $4
  and "device_id" = $5
  and "attempt" = $6
  and "status" = $7
  and "dispatched_at" is not null
returning *;

-- acceptResult(tx, '22222222-2222-4222-8222-222222222222', { taskId: '33333333-3333-4333-8333-333333333333', attempt: 2, status: 'completed', finishedAt: Date(2025-01-15T09:04:00.000Z) }, Outbox, Outboxes)
-- an attempt this phone was never given
--   $1 = 'completed'
--   $2 = Date(2025-01-15T09:04:00.000Z)
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = null
--   $7 = null
--   $8 = null
--   $9 = null
--   $10 = null
--   $11 = '33333333-3333-4333-8333-333333333333'
--   $12 = 2
--   $13 = '22222222-2222-4222-8222-222222222222'
--   $14 = 'expired'
--   $15 = 'withdrawn'
--   $16 = '33333333-3333-4333-8333-333333333333'
--   $17 = 2
--   $18 = '22222222-2222-4222-8222-222222222222'
with
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $1,
      "ended_at" = $2,
      "failure_code" = $3,
      "failure_message" = $4,
      "recipe_id" = $5,
      "recipe_version" = $6,
      "app_package" = $7,
      "app_version" = $8,
      "run_ms" = $9,
      "app_locale" = $10
    where
      "task_id" = $11
      and "attempt" = $12
      and "device_id" = $13
      and ("outcome" is null or "outcome" in ($14, $15))
    returning "task_id"
  )
select
  "t".*,
  "a"."outcome" as "given_outcome"
from "tasks" as "t"
  inner join "task_attempts" as "a" on "a"."task_id" = "t"."id"
where
  "t"."id" = $16
  and "a"."attempt" = $17
  and "a"."device_id" = $18
for update;

-- acceptResult(tx, '22222222-2222-4222-8222-222222222222', { taskId: '33333333-3333-4333-8333-333333333333', attempt: 2, status: 'failed', failure: { code: 'network', message: 'No connection', recipe: { id: 'instagram-like', version: 4 } } }, Outbox, Outboxes)
-- a retryable failure of the attempt out: the run counted, the task back to waiting
-- 1 of 5, answered with 1 row
--   $1 = 'failed'
--   $2 = 'network'
--   $3 = 'No connection'
--   $4 = 'instagram-like'
--   $5 = 4
--   $6 = ''
--   $7 = ''
--   $8 = null
--   $9 = null
--   $10 = '33333333-3333-4333-8333-333333333333'
--   $11 = 2
--   $12 = '22222222-2222-4222-8222-222222222222'
--   $13 = 'expired'
--   $14 = 'withdrawn'
--   $15 = '33333333-3333-4333-8333-333333333333'
--   $16 = 2
--   $17 = '22222222-2222-4222-8222-222222222222'
with
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $1,
      "ended_at" = now(),
      "failure_code" = $2,
      "failure_message" = $3,
      "recipe_id" = $4,
      "recipe_version" = $5,
      "app_package" = $6,
      "app_version" = $7,
      "run_ms" = $8,
      "app_locale" = $9
    where
      "task_id" = $10
      and "attempt" = $11
      and "device_id" = $12
      and ("outcome" is null or "outcome" in ($13, $14))
    returning "task_id"
  )
select
  "t".*,
  "a"."outcome" as "given_outcome"
from "tasks" as "t"
  inner join "task_attempts" as "a" on "a"."task_id" = "t"."id"
where
  "t"."id" = $15
  and "a"."attempt" = $16
  and "a"."device_id" = $17
for update;

-- 2 of 5
--   $1 = ['11111111-1111-4111-8111-111111111111']
--   $2 = ['instagram-like']
--   $3 = ['']
--   $4 = ['']
--   $5 = [1]
--   $6 = [0]
--   $7 = [1]
--   $8 = ['{"network":1}']
--   $9 = [0]
--   $10 = [0]
--   $11 = ['{0,0,0,0,0,0,0,0,0,0,0,0,0,0}']
insert into recipe_runs_daily as r (workspace_id, day, recipe_id, package, app_version, runs, succeeded, failed, failure_codes, timed_runs, duration_ms_sum, duration_buckets)
select
  g.workspace_id,
  (now() at time zone w.time_zone)::date,
  g.recipe_id,
  g.package,
  g.app_version,
  g.runs,
  g.succeeded,
  g.failed,
  g.codes::jsonb,
  g.timed,
  g.ms,
  g.buckets::int[]
from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[], $9::int[], $10::bigint[], $11::text[]) with ordinality as g(workspace_id, recipe_id, package, app_version, runs, succeeded, failed, codes, timed, ms, buckets, n)
  join workspaces w on w.id = g.workspace_id
order by g.n
on conflict (workspace_id, day, recipe_id, package, app_version) do update
set
  runs = r.runs + excluded.runs,
  succeeded = r.succeeded + excluded.succeeded,
  failed = r.failed + excluded.failed,
  failure_codes = (
    select coalesce(jsonb_object_agg(e.key, e.n), '{}'::jsonb)
    from
      (
        select
          key,
          sum(value::int) as n
        from
          (
            select *
            from jsonb_each_text(r.failure_codes)
            union all
            select *
            from jsonb_each_text(excluded.failure_codes)
          ) c
        group by key
      ) e
  ),
  timed_runs = r.timed_runs + excluded.timed_runs,
  duration_ms_sum = r.duration_ms_sum + excluded.duration_ms_sum,
  duration_buckets = array(
    select coalesce(a, 0) + coalesce(b, 0)
    from unnest(r.duration_buckets, excluded.duration_buckets) with ordinality as u(a, b, n)
    order by u.n
  );

-- 3 of 5
--   $1 = ['11111111-1111-4111-8111-111111111111']
--   $2 = ['instagram-like']
--   $3 = ['']
--   $4 = ['']
--   $5 = ['22222222-2222-4222-8222-222222222222']
insert into recipe_run_devices (workspace_id, day, recipe_id, package, app_version, device_id)
select
  g.workspace_id,
  (now() at time zone w.time_zone)::date,
  g.recipe_id,
  g.package,
  g.app_version,
  g.device_id
from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[]) as g(workspace_id, recipe_id, package, app_version, device_id)
  join workspaces w on w.id = g.workspace_id
  join devices d on d.id = g.device_id and d.workspace_id = g.workspace_id
on conflict do nothing;

-- 4 of 5
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = 15000
--   $5 = 'network'
--   $6 = 'No connection'
--   $7 = null
--   $8 = null
--   $9 = '33333333-3333-4333-8333-333333333333'
--   $10 = 2
--   $11 = 'pending'
--   $12 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "dispatched_at" = $2,
  "lease_expires_at" = $3,
  "next_attempt_at" = now() + ($4 * interval '1 millisecond'),
  "failure_code" = $5,
  "failure_message" = $6,
  "progress" = $7,
  "progress_note" = $8
where
  "id" = $9
  and "attempt" = $10
  and "status" in ($11, $12)
returning *;

-- 5 of 5
--   $1 = 'failed'
--   $2 = null
--   $3 = null
--   $4 = 'network'
--   $5 = 'No connection'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- acceptResult(tx, '22222222-2222-4222-8222-222222222222', { taskId: '33333333-3333-4333-8333-333333333333', attempt: 2, status: 'failed', failure: { code: 'screen_unreadable', recipe: { id: 'instagram-like', version: 4 }, app: { package: 'com.instagram.android', version: '447.0.0.55.81', locale: 'en-US' } } }, Outbox, Outboxes)
-- an unreadable screen: tried again only when no earlier attempt of the task ended so
-- 1 of 6, answered with 1 row
--   $1 = 'failed'
--   $2 = 'screen_unreadable'
--   $3 = null
--   $4 = 'instagram-like'
--   $5 = 4
--   $6 = 'com.instagram.android'
--   $7 = '447.0.0.55.81'
--   $8 = null
--   $9 = 'en-US'
--   $10 = '33333333-3333-4333-8333-333333333333'
--   $11 = 2
--   $12 = '22222222-2222-4222-8222-222222222222'
--   $13 = 'expired'
--   $14 = 'withdrawn'
--   $15 = '33333333-3333-4333-8333-333333333333'
--   $16 = 2
--   $17 = '22222222-2222-4222-8222-222222222222'
with
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $1,
      "ended_at" = now(),
      "failure_code" = $2,
      "failure_message" = $3,
      "recipe_id" = $4,
      "recipe_version" = $5,
      "app_package" = $6,
      "app_version" = $7,
      "run_ms" = $8,
      "app_locale" = $9
    where
      "task_id" = $10
      and "attempt" = $11
      and "device_id" = $12
      and ("outcome" is null or "outcome" in ($13, $14))
    returning "task_id"
  )
select
  "t".*,
  "a"."outcome" as "given_outcome"
from "tasks" as "t"
  inner join "task_attempts" as "a" on "a"."task_id" = "t"."id"
where
  "t"."id" = $15
  and "a"."attempt" = $16
  and "a"."device_id" = $17
for update;

-- 2 of 6
--   $1 = ['11111111-1111-4111-8111-111111111111']
--   $2 = ['instagram-like']
--   $3 = ['com.instagram.android']
--   $4 = ['447.0.0.55.81']
--   $5 = [1]
--   $6 = [0]
--   $7 = [1]
--   $8 = ['{"screen_unreadable":1}']
--   $9 = [0]
--   $10 = [0]
--   $11 = ['{0,0,0,0,0,0,0,0,0,0,0,0,0,0}']
insert into recipe_runs_daily as r (workspace_id, day, recipe_id, package, app_version, runs, succeeded, failed, failure_codes, timed_runs, duration_ms_sum, duration_buckets)
select
  g.workspace_id,
  (now() at time zone w.time_zone)::date,
  g.recipe_id,
  g.package,
  g.app_version,
  g.runs,
  g.succeeded,
  g.failed,
  g.codes::jsonb,
  g.timed,
  g.ms,
  g.buckets::int[]
from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[], $9::int[], $10::bigint[], $11::text[]) with ordinality as g(workspace_id, recipe_id, package, app_version, runs, succeeded, failed, codes, timed, ms, buckets, n)
  join workspaces w on w.id = g.workspace_id
order by g.n
on conflict (workspace_id, day, recipe_id, package, app_version) do update
set
  runs = r.runs + excluded.runs,
  succeeded = r.succeeded + excluded.succeeded,
  failed = r.failed + excluded.failed,
  failure_codes = (
    select coalesce(jsonb_object_agg(e.key, e.n), '{}'::jsonb)
    from
      (
        select
          key,
          sum(value::int) as n
        from
          (
            select *
            from jsonb_each_text(r.failure_codes)
            union all
            select *
            from jsonb_each_text(excluded.failure_codes)
          ) c
        group by key
      ) e
  ),
  timed_runs = r.timed_runs + excluded.timed_runs,
  duration_ms_sum = r.duration_ms_sum + excluded.duration_ms_sum,
  duration_buckets = array(
    select coalesce(a, 0) + coalesce(b, 0)
    from unnest(r.duration_buckets, excluded.duration_buckets) with ordinality as u(a, b, n)
    order by u.n
  );

-- 3 of 6
--   $1 = ['11111111-1111-4111-8111-111111111111']
--   $2 = ['instagram-like']
--   $3 = ['com.instagram.android']
--   $4 = ['447.0.0.55.81']
--   $5 = ['22222222-2222-4222-8222-222222222222']
insert into recipe_run_devices (workspace_id, day, recipe_id, package, app_version, device_id)
select
  g.workspace_id,
  (now() at time zone w.time_zone)::date,
  g.recipe_id,
  g.package,
  g.app_version,
  g.device_id
from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[]) as g(workspace_id, recipe_id, package, app_version, device_id)
  join workspaces w on w.id = g.workspace_id
  join devices d on d.id = g.device_id and d.workspace_id = g.workspace_id
on conflict do nothing;

-- 4 of 6
--   $1 = '33333333-3333-4333-8333-333333333333'
--   $2 = 2
--   $3 = 'screen_unreadable'
--   $4 = 1
select "attempt"
from "task_attempts"
where
  "task_id" = $1
  and "attempt" < $2
  and "failure_code" = $3
limit $4;

-- 5 of 6
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = 15000
--   $5 = 'screen_unreadable'
--   $6 = 'The phone\'s screen could not be read'
--   $7 = null
--   $8 = null
--   $9 = '33333333-3333-4333-8333-333333333333'
--   $10 = 2
--   $11 = 'pending'
--   $12 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "dispatched_at" = $2,
  "lease_expires_at" = $3,
  "next_attempt_at" = now() + ($4 * interval '1 millisecond'),
  "failure_code" = $5,
  "failure_message" = $6,
  "progress" = $7,
  "progress_note" = $8
where
  "id" = $9
  and "attempt" = $10
  and "status" in ($11, $12)
returning *;

-- 6 of 6
--   $1 = 'failed'
--   $2 = null
--   $3 = null
--   $4 = 'screen_unreadable'
--   $5 = 'The phone\'s screen could not be read'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- acceptResults(tx, [{ deviceId: '22222222-2222-4222-8222-222222222222', workspaceId: '11111111-1111-4111-8111-111111111111', result: { taskId: '33333333-3333-4333-8333-333333333333', attempt: 2, status: 'completed', finishedAt: Date(2025-01-15T09:04:00.000Z), engagement: { likes: 20 } } }, { deviceId: '22222222-2222-4222-8222-000000000002', workspaceId: '11111111-1111-4111-8111-111111111111', result: { taskId: '33333333-3333-4333-8333-000000000002', attempt: 1, status: 'failed', failure: { code: 'app_crashed' } } }, { deviceId: '22222222-2222-4222-8222-000000000002', workspaceId: '11111111-1111-4111-8111-111111111111', result: { taskId: 'not-a-uuid', attempt: 1, status: 'completed' } }], Outboxes)
-- completions written together, the rest one by one, an id that is no UUID not at all
-- 1 of 3
--   $1 = [0]
--   $2 = ['33333333-3333-4333-8333-333333333333']
--   $3 = ['22222222-2222-4222-8222-222222222222']
--   $4 = [2]
--   $5 = ['2025-01-15T09:04:00.000Z']
--   $6 = ['{"likes":20}']
--   $7 = [null]
--   $8 = [null]
--   $9 = [null]
--   $10 = [null]
--   $11 = [null]
--   $12 = 'completed'
--   $13 = null
--   $14 = null
--   $15 = null
--   $16 = null
--   $17 = 100
--   $18 = 'pending'
--   $19 = 'in-progress'
--   $20 = 'completed'
--   $21 = null
--   $22 = null
--   $23 = 'expired'
--   $24 = 'withdrawn'
with
  "g" as (
    select *
    from unnest($1::int[], $2::uuid[], $3::uuid[], $4::int[], $5::timestamptz[], $6::jsonb[], $7::text[], $8::int[], $9::text[], $10::text[], $11::int[]) as g(i, id, device_id, attempt, finished_at, engagement, recipe_id, recipe_version, app_package, app_version, run_ms)
  ),
  "settled" as (
    update "tasks"
    set
      "status" = $12,
      "completed_at" = now(),
      "lease_expires_at" = $13,
      "next_attempt_at" = $14,
      "failure_code" = $15,
      "failure_message" = $16,
      "progress" = $17,
      "engagement" = coalesce(g.engagement, tasks.engagement)
    from "g"
    where
      "tasks"."id" = "g"."id"
      and "tasks"."device_id" = "g"."device_id"
      and "tasks"."attempt" = "g"."attempt"
      and "tasks"."dispatched_at" is not null
      and "tasks"."status" in ($18, $19)
      and "tasks"."campaign_session_id" is null
    returning
      "tasks".*,
      "g"."i"
  ),
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $20,
      "ended_at" = coalesce(g.finished_at, now()),
      "failure_code" = $21,
      "failure_message" = $22,
      "recipe_id" = g.recipe_id,
      "recipe_version" = g.recipe_version,
      "app_package" = g.app_package,
      "app_version" = g.app_version,
      "run_ms" = g.run_ms
    from "settled"
      inner join "g" on "g"."id" = "settled"."id"
    where
      "task_attempts"."task_id" = "settled"."id"
      and "task_attempts"."attempt" = "settled"."attempt"
      and "task_attempts"."device_id" = "settled"."device_id"
      and ("task_attempts"."outcome" is null or "task_attempts"."outcome" in ($23, $24))
    returning "task_attempts"."task_id"
  )
select
  "settled".*,
  exists (
    select 1
    from recorded r
    where r.task_id = settled.id
  ) as "first_word"
from "settled"
order by "settled"."i";

-- 2 of 3
--   $1 = 'completed'
--   $2 = Date(2025-01-15T09:04:00.000Z)
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = null
--   $7 = null
--   $8 = null
--   $9 = null
--   $10 = null
--   $11 = '33333333-3333-4333-8333-333333333333'
--   $12 = 2
--   $13 = '22222222-2222-4222-8222-222222222222'
--   $14 = 'expired'
--   $15 = 'withdrawn'
--   $16 = '33333333-3333-4333-8333-333333333333'
--   $17 = 2
--   $18 = '22222222-2222-4222-8222-222222222222'
with
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $1,
      "ended_at" = $2,
      "failure_code" = $3,
      "failure_message" = $4,
      "recipe_id" = $5,
      "recipe_version" = $6,
      "app_package" = $7,
      "app_version" = $8,
      "run_ms" = $9,
      "app_locale" = $10
    where
      "task_id" = $11
      and "attempt" = $12
      and "device_id" = $13
      and ("outcome" is null or "outcome" in ($14, $15))
    returning "task_id"
  )
select
  "t".*,
  "a"."outcome" as "given_outcome"
from "tasks" as "t"
  inner join "task_attempts" as "a" on "a"."task_id" = "t"."id"
where
  "t"."id" = $16
  and "a"."attempt" = $17
  and "a"."device_id" = $18
for update;

-- 3 of 3
--   $1 = 'failed'
--   $2 = 'app_crashed'
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = null
--   $7 = null
--   $8 = null
--   $9 = null
--   $10 = '33333333-3333-4333-8333-000000000002'
--   $11 = 1
--   $12 = '22222222-2222-4222-8222-000000000002'
--   $13 = 'expired'
--   $14 = 'withdrawn'
--   $15 = '33333333-3333-4333-8333-000000000002'
--   $16 = 1
--   $17 = '22222222-2222-4222-8222-000000000002'
with
  "recorded" as (
    update "task_attempts"
    set
      "outcome" = $1,
      "ended_at" = now(),
      "failure_code" = $2,
      "failure_message" = $3,
      "recipe_id" = $4,
      "recipe_version" = $5,
      "app_package" = $6,
      "app_version" = $7,
      "run_ms" = $8,
      "app_locale" = $9
    where
      "task_id" = $10
      and "attempt" = $11
      and "device_id" = $12
      and ("outcome" is null or "outcome" in ($13, $14))
    returning "task_id"
  )
select
  "t".*,
  "a"."outcome" as "given_outcome"
from "tasks" as "t"
  inner join "task_attempts" as "a" on "a"."task_id" = "t"."id"
where
  "t"."id" = $15
  and "a"."attempt" = $16
  and "a"."device_id" = $17
for update;

-- settleTask(tx, task(pending, dispatched, attempt 1 of 3), 'cancelled', { cause: 'person' }, Outboxes)
-- the attempt out on the phone is withdrawn
-- 1 of 2, answered with 1 row
--   $1 = 'cancelled'
--   $2 = null
--   $3 = null
--   $4 = 'cancelled'
--   $5 = 'Cancelled'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- 2 of 2
--   $1 = 'cancelled'
--   $2 = 'cancelled'
--   $3 = 'Cancelled'
--   $4 = '33333333-3333-4333-8333-333333333333'
--   $5 = 1
update "task_attempts"
set
  "outcome" = $1,
  "ended_at" = now(),
  "failure_code" = $2,
  "failure_message" = $3
where
  "task_id" = $4
  and "attempt" = $5
  and "outcome" is null;

-- cancelTasks(tx, { postId: '44444444-4444-4444-8444-444444444444' }, { message: 'The post was deleted', cause: 'change' }, Outboxes)
--   $1 = 'pending'
--   $2 = 'in-progress'
--   $3 = '44444444-4444-4444-8444-444444444444'
--   $4 = '44444444-4444-4444-8444-444444444444'
select *
from "tasks"
where
  "status" in ($1, $2)
  and ("post_id" = $3 or "unconfirmed_task_id" in (
    select "p"."id"
    from "tasks" as "p"
    where "p"."post_id" = $4
  ))
order by "id"
for update;

-- cancelTasks(tx, { accountId: '55555555-5555-4555-8555-555555555555', automationOnly: true, taskIds: ['33333333-3333-4333-8333-333333333333'], campaignSessionIds: ['66666666-6666-4666-8666-666666666666'] }, { message: 'The account was paused', cause: 'automation' }, Outboxes)
--   $1 = 'pending'
--   $2 = 'in-progress'
--   $3 = '33333333-3333-4333-8333-333333333333'
--   $4 = '66666666-6666-4666-8666-666666666666'
--   $5 = '55555555-5555-4555-8555-555555555555'
select *
from "tasks"
where
  "status" in ($1, $2)
  and "id" in ($3)
  and "campaign_session_id" in ($4)
  and "account_id" = $5
  and "post_id" is null
  and "source_key" is not null
order by "id"
for update;

-- withdrawTask(tx, task(in-progress, dispatched, attempt 2 of 3), 'The phone was reassigned', Outbox)
-- 1 of 2, answered with 1 row
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 2
update "tasks"
set
  "status" = $1,
  "dispatched_at" = $2,
  "lease_expires_at" = $3,
  "max_attempts" = max_attempts + 1,
  "progress" = $4,
  "progress_note" = $5
where
  "id" = $6
  and "attempt" = $7
returning *;

-- 2 of 2
--   $1 = 'withdrawn'
--   $2 = 'cancelled'
--   $3 = 'The phone was reassigned'
--   $4 = '33333333-3333-4333-8333-333333333333'
--   $5 = 2
update "task_attempts"
set
  "outcome" = $1,
  "ended_at" = now(),
  "failure_code" = $2,
  "failure_message" = $3
where
  "task_id" = $4
  and "attempt" = $5
  and "outcome" is null;

-- moveTaskByPerson(tx, task(in-progress, dispatched, attempt 2 of 3), 'completed', Outbox)
--   $1 = 'completed'
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = 100
--   $7 = '33333333-3333-4333-8333-333333333333'
--   $8 = 'pending'
--   $9 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5,
  "progress" = $6
where
  "id" = $7
  and "status" in ($8, $9)
returning *;

-- moveTaskByPerson(tx, task(in-progress, dispatched, attempt 2 of 3), 'failed', Outbox)
--   $1 = 'failed'
--   $2 = null
--   $3 = null
--   $4 = 'unknown'
--   $5 = 'Marked as failed by a person'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- moveTaskByPerson(tx, task(in-progress, dispatched, attempt 2 of 3), 'cancelled', Outbox)
--   $1 = 'cancelled'
--   $2 = null
--   $3 = null
--   $4 = 'cancelled'
--   $5 = 'Cancelled by a person'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- moveTaskByPerson(tx, task(pending), 'in-progress', Outbox)
--   $1 = 'in-progress'
--   $2 = Date(2025-01-15T12:00:00.000Z)
--   $3 = '33333333-3333-4333-8333-333333333333'
--   $4 = 'pending'
update "tasks"
set
  "status" = $1,
  "started_at" = $2
where
  "id" = $3
  and "status" = $4
returning *;

-- moveTaskByPerson(tx, task(in-progress, not dispatched), 'pending', Outbox)
--   $1 = 'pending'
--   $2 = '33333333-3333-4333-8333-333333333333'
--   $3 = 'in-progress'
update "tasks"
set "status" = $1
where
  "id" = $2
  and "status" = $3
returning *;

-- moveTaskByPerson(tx, task(failed), 'pending', Outbox)
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = null
--   $7 = null
--   $8 = null
--   $9 = null
--   $10 = 3
--   $11 = '33333333-3333-4333-8333-333333333333'
--   $12 = 'failed'
--   $13 = 'cancelled'
update "tasks"
set
  "status" = $1,
  "completed_at" = $2,
  "dispatched_at" = $3,
  "lease_expires_at" = $4,
  "next_attempt_at" = $5,
  "failure_code" = $6,
  "failure_message" = $7,
  "progress" = $8,
  "progress_note" = $9,
  "max_attempts" = attempt + $10
where
  "id" = $11
  and "status" in ($12, $13)
returning *;

-- retryTask(tx, task(failed), Outboxes)
-- 1 of 2, answered with 1 row
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = null
--   $5 = null
--   $6 = null
--   $7 = null
--   $8 = null
--   $9 = null
--   $10 = 3
--   $11 = '33333333-3333-4333-8333-333333333333'
--   $12 = 'failed'
--   $13 = 'cancelled'
update "tasks"
set
  "status" = $1,
  "completed_at" = $2,
  "dispatched_at" = $3,
  "lease_expires_at" = $4,
  "next_attempt_at" = $5,
  "failure_code" = $6,
  "failure_message" = $7,
  "progress" = $8,
  "progress_note" = $9,
  "max_attempts" = attempt + $10
where
  "id" = $11
  and "status" in ($12, $13)
returning *;

-- 2 of 2
--   $1 = '33333333-3333-4333-8333-333333333333'
--   $2 = 'pending'
--   $3 = 'in-progress'
select "id"
from "tasks"
where
  "unconfirmed_task_id" = $1
  and "status" in ($2, $3);

-- completeFailedTask(tx, task(failed), Date(2025-01-15T09:04:00.000Z), Outboxes)
-- the post was seen published after all: the failed task is completed
-- answered with 1 row
--   $1 = 'completed'
--   $2 = null
--   $3 = null
--   $4 = 100
--   $5 = '33333333-3333-4333-8333-333333333333'
--   $6 = 'failed'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "failure_code" = $2,
  "failure_message" = $3,
  "progress" = $4
where
  "id" = $5
  and "status" = $6
returning *;

-- expireLeases(db, Outboxes, 50)
-- an attempt not acked in time: ended, and the task tried again later
-- 1 of 6
begin;

-- 2 of 6, answered with 1 row
--   $1 = 'pending'
--   $2 = 'in-progress'
--   $3 = 50
select *
from "tasks"
where
  "dispatched_at" is not null
  and "status" in ($1, $2)
  and "lease_expires_at" < now()
order by "lease_expires_at"
limit $3
for update skip locked;

-- 3 of 6
--   $1 = 'expired'
--   $2 = 'ack_timeout'
--   $3 = 'The phone did not take attempt 1 within 10 s'
--   $4 = '33333333-3333-4333-8333-333333333333'
--   $5 = 1
update "task_attempts"
set
  "outcome" = $1,
  "ended_at" = now(),
  "failure_code" = $2,
  "failure_message" = $3
where
  "task_id" = $4
  and "attempt" = $5
  and "outcome" is null;

-- 4 of 6
--   $1 = 'pending'
--   $2 = null
--   $3 = null
--   $4 = 7500
--   $5 = 'ack_timeout'
--   $6 = 'The phone did not take attempt 1 within 10 s'
--   $7 = null
--   $8 = null
--   $9 = '33333333-3333-4333-8333-333333333333'
--   $10 = 1
--   $11 = 'pending'
--   $12 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "dispatched_at" = $2,
  "lease_expires_at" = $3,
  "next_attempt_at" = now() + ($4 * interval '1 millisecond'),
  "failure_code" = $5,
  "failure_message" = $6,
  "progress" = $7,
  "progress_note" = $8
where
  "id" = $9
  and "attempt" = $10
  and "status" in ($11, $12)
returning *;

-- 5 of 6
--   $1 = 'failed'
--   $2 = null
--   $3 = null
--   $4 = 'ack_timeout'
--   $5 = 'The phone did not take attempt 1 within 10 s'
--   $6 = '33333333-3333-4333-8333-333333333333'
--   $7 = 'pending'
--   $8 = 'in-progress'
update "tasks"
set
  "status" = $1,
  "completed_at" = now(),
  "lease_expires_at" = $2,
  "next_attempt_at" = $3,
  "failure_code" = $4,
  "failure_message" = $5
where
  "id" = $6
  and "status" in ($7, $8)
returning *;

-- 6 of 6
commit;
