-- The SQL of api/src/modules/analytics/analytics.queries.ts: its query functions, called with the fixed arguments of
-- api/test/queries/analytics.cases.ts on a database that only compiles (@farm/sql/snapshot).
-- Written by `pnpm sql:snapshots`; CI fails when this file differs (`pnpm check:sql`).
-- A statement answered with rows says so; the others were answered with none.
-- The clock stands at 2025-01-15T12:00:00.000Z; Math.random() answers 0.5 (a retry's jitter at its middle).
-- Fixed ids: workspace 11111111-1111-4111-8111-111111111111, account 55555555-5555-4555-8555-555555555555, device group 88888888-8888-4888-8888-888888888888.

-- computeStats(db, '11111111-1111-4111-8111-111111111111', undefined)
-- of all time: the task totals from the tallies
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = '11111111-1111-4111-8111-111111111111'
select
  t.total,
  t.completed,
  s.seconds,
  s.active,
  d.devices,
  d.online
from
  (
    select
      coalesce(sum(n), 0)::int as devices,
      coalesce(sum(n) filter (where status <> 'offline'), 0)::int as online
    from device_tallies
    where workspace_id = $1
  ) d,
  (
    select
      coalesce(sum(n), 0)::int as total,
      coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
    from task_tallies
    where workspace_id = $2
  ) t,
  (
    select
      (count(*) filter (where s.ended_at is null))::int as active,
      coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int as seconds
    from sessions s
    where s.workspace_id = $3
  ) s;

-- computeStats(db, '11111111-1111-4111-8111-111111111111', '7d')
-- over a range: the tasks created in it
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = Date(2025-01-08T12:00:00.000Z)
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = Date(2025-01-08T12:00:00.000Z)
select
  t.total,
  t.completed,
  s.seconds,
  s.active,
  d.devices,
  d.online
from
  (
    select
      coalesce(sum(n), 0)::int as devices,
      coalesce(sum(n) filter (where status <> 'offline'), 0)::int as online
    from device_tallies
    where workspace_id = $1
  ) d,
  (
    select
      count(*)::int as total,
      (count(*) filter (where status = 'completed'))::int as completed
    from tasks
    where
      workspace_id = $2
      and created_at >= $3
  ) t,
  (
    select
      (count(*) filter (where s.ended_at is null))::int as active,
      coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int as seconds
    from sessions s
    where
      s.workspace_id = $4
      and (s.started_at >= $5 or s.ended_at is null)
  ) s;

-- computeStats(db, '11111111-1111-4111-8111-111111111111', undefined, '88888888-8888-4888-8888-888888888888')
-- one group of all time: counted from the rows
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '88888888-8888-4888-8888-888888888888'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '88888888-8888-4888-8888-888888888888'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '88888888-8888-4888-8888-888888888888'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '88888888-8888-4888-8888-888888888888'
select
  c.total,
  c.completed,
  (
    select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
    from sessions s
    where
      s.workspace_id = $1
      and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $2
          and m.device_id = "s"."device_id"
      )
      and ((s.started_at >= '-infinity'::timestamptz and s.started_at < 'infinity'::timestamptz) or s.ended_at is null)
  ) as seconds,
  (
    select count(*)::int
    from sessions s
    where
      s.workspace_id = $3
      and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $4
          and m.device_id = "s"."device_id"
      )
      and s.ended_at is null
  ) as active,
  f.devices,
  f.online
from
  (
    select
      count(*)::int as total,
      (count(*) filter (where t.status = 'completed'))::int as completed
    from tasks t
    where
      t.workspace_id = $5
      and t.created_at >= '-infinity'::timestamptz
      and t.created_at < 'infinity'::timestamptz
      and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $6
          and m.device_id = "t"."device_id"
      )
  ) c,
  (
    select
      count(*)::int as devices,
      (count(*) filter (where d.status <> 'offline'))::int as online
    from devices d
    where
      d.workspace_id = $7
      and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $8
          and m.device_id = "d"."id"
      )
  ) f;

-- computeStatsOfAllTime(db, '11111111-1111-4111-8111-111111111111')
-- the stats read of all time: the figures and the workspace's time zone in one statement
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
select
  f.total,
  f.completed,
  f.seconds,
  f.active,
  f.devices,
  f.online,
  w.time_zone as "timeZone"
from
  workspaces w,
  (
    select
      t.total,
      t.completed,
      s.seconds,
      s.active,
      d.devices,
      d.online
    from
      (
        select
          coalesce(sum(n), 0)::int as devices,
          coalesce(sum(n) filter (where status <> 'offline'), 0)::int as online
        from device_tallies
        where workspace_id = $1
      ) d,
      (
        select
          coalesce(sum(n), 0)::int as total,
          coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
        from task_tallies
        where workspace_id = $2
      ) t,
      (
        select
          (count(*) filter (where s.ended_at is null))::int as active,
          coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int as seconds
        from sessions s
        where s.workspace_id = $3
      ) s
  ) f
where w.id = $4;

-- computeStatsOfAllTime(db, '11111111-1111-4111-8111-111111111111', '88888888-8888-4888-8888-888888888888')
-- one group of all time
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '88888888-8888-4888-8888-888888888888'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '88888888-8888-4888-8888-888888888888'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '88888888-8888-4888-8888-888888888888'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '88888888-8888-4888-8888-888888888888'
--   $9 = '11111111-1111-4111-8111-111111111111'
select
  f.total,
  f.completed,
  f.seconds,
  f.active,
  f.devices,
  f.online,
  w.time_zone as "timeZone"
from
  workspaces w,
  (
    select
      c.total,
      c.completed,
      (
        select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
        from sessions s
        where
          s.workspace_id = $1
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $2
              and m.device_id = "s"."device_id"
          )
          and ((s.started_at >= '-infinity'::timestamptz and s.started_at < 'infinity'::timestamptz) or s.ended_at is null)
      ) as seconds,
      (
        select count(*)::int
        from sessions s
        where
          s.workspace_id = $3
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $4
              and m.device_id = "s"."device_id"
          )
          and s.ended_at is null
      ) as active,
      f.devices,
      f.online
    from
      (
        select
          count(*)::int as total,
          (count(*) filter (where t.status = 'completed'))::int as completed
        from tasks t
        where
          t.workspace_id = $5
          and t.created_at >= '-infinity'::timestamptz
          and t.created_at < 'infinity'::timestamptz
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $6
              and m.device_id = "t"."device_id"
          )
      ) c,
      (
        select
          count(*)::int as devices,
          (count(*) filter (where d.status <> 'offline'))::int as online
        from devices d
        where
          d.workspace_id = $7
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $8
              and m.device_id = "d"."id"
          )
      ) f
  ) f
where w.id = $9;

-- computePerformance(db, '11111111-1111-4111-8111-111111111111', undefined)
-- of all time: the rollup per phone and VA
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
select
  (
    select json_agg(p order by p."totalTasks" desc, p.name)
    from
      (
        select
          d.id as "deviceId",
          d.name,
          coalesce(c.total, 0) as "totalTasks",
          coalesce(c.completed, 0) as "completedTasks"
        from devices d
          left join (
            select
              "device_id" as key,
              sum(n)::int as total,
              (sum(n) filter (where completed))::int as completed
            from task_worker_counts
            where workspace_id = $1
            group by "device_id"
          ) c on c.key = d.id
        where d.workspace_id = $2
        order by
          coalesce(c.total, 0) desc,
          d.name
        limit 5
      ) p
  ) as devices,
  (
    select json_agg(p order by p."totalTasks" desc, p.name)
    from
      (
        select
          m.user_id as "userId",
          u.name,
          coalesce(c.total, 0) as "totalTasks",
          coalesce(c.completed, 0) as "completedTasks",
          coalesce((
            select sum(d.session_time)
            from devices d
            where
              d.assigned_to_id = m.user_id
              and d.workspace_id = $3
          ), 0)::int as seconds
        from workspace_members m
          join users u on u.id = m.user_id
          left join (
            select
              "assigned_to_id" as key,
              sum(n)::int as total,
              (sum(n) filter (where completed))::int as completed
            from task_worker_counts
            where workspace_id = $4
            group by "assigned_to_id"
          ) c on c.key = m.user_id
        where
          m.workspace_id = $5
          and m.role = 'va'
        order by
          coalesce(c.total, 0) desc,
          u.name
        limit 5
      ) p
  ) as vas;

-- computePerformance(db, '11111111-1111-4111-8111-111111111111', '30d')
-- over a range: the tasks created in it
-- answered with 1 row
--   $1 = '11111111-1111-4111-8111-111111111111'
--   $2 = Date(2024-12-16T12:00:00.000Z)
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = Date(2024-12-16T12:00:00.000Z)
--   $6 = '11111111-1111-4111-8111-111111111111'
--   $7 = Date(2024-12-16T12:00:00.000Z)
--   $8 = '11111111-1111-4111-8111-111111111111'
select
  (
    select json_agg(p order by p."totalTasks" desc, p.name)
    from
      (
        select
          d.id as "deviceId",
          d.name,
          coalesce(c.total, 0) as "totalTasks",
          coalesce(c.completed, 0) as "completedTasks"
        from devices d
          left join (
            select
              "device_id" as key,
              count(*)::int as total,
              (count(*) filter (where status = 'completed'))::int as completed,
              (count(*) filter (where status = 'failed'))::int as failed
            from tasks
            where
              workspace_id = $1
              and created_at >= $2
            group by "device_id"
          ) c on c.key = d.id
        where d.workspace_id = $3
        order by
          coalesce(c.total, 0) desc,
          d.name
        limit 5
      ) p
  ) as devices,
  (
    select json_agg(p order by p."totalTasks" desc, p.name)
    from
      (
        select
          m.user_id as "userId",
          u.name,
          coalesce(c.total, 0) as "totalTasks",
          coalesce(c.completed, 0) as "completedTasks",
          coalesce((
            select sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end))
            from sessions s
              join devices d on d.id = s.device_id
            where
              d.assigned_to_id = m.user_id
              and d.workspace_id = $4
              and s.started_at >= $5
          ), 0)::int as seconds
        from workspace_members m
          join users u on u.id = m.user_id
          left join (
            select
              "assigned_to_id" as key,
              count(*)::int as total,
              (count(*) filter (where status = 'completed'))::int as completed,
              (count(*) filter (where status = 'failed'))::int as failed
            from tasks
            where
              workspace_id = $6
              and created_at >= $7
            group by "assigned_to_id"
          ) c on c.key = m.user_id
        where
          m.workspace_id = $8
          and m.role = 'va'
        order by
          coalesce(c.total, 0) desc,
          u.name
        limit 5
      ) p
  ) as vas;

-- resolveWindow(db, '11111111-1111-4111-8111-111111111111', { range: '24h' })
-- answered with 1 row
--   $1 = null
--   $2 = '11111111-1111-4111-8111-111111111111'
select
  z.name as "timeZone",
  (h.hour at time zone z.name) - interval '23 hours' as start,
  (h.hour at time zone z.name) + interval '1 hour' as "end",
  (h.hour at time zone z.name) - interval '47 hours' as "previousStart"
from
  workspaces w,
  lateral (
    select coalesce($1::text, w.time_zone) as name
  ) z,
  lateral (
    select date_trunc('hour', now() at time zone z.name) as hour
  ) h
where w.id = $2;

-- resolveWindow(db, '11111111-1111-4111-8111-111111111111', { from: '2025-01-01', to: '2025-01-07', tz: 'Europe/Paris' })
-- answered with 1 row
--   $1 = 'Europe/Paris'
--   $2 = '2025-01-01'
--   $3 = '2025-01-07'
--   $4 = '11111111-1111-4111-8111-111111111111'
select
  z.name as "timeZone",
  b.first_day::timestamp at time zone z.name as start,
  b.after_day::timestamp at time zone z.name as "end",
  (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
from
  workspaces w,
  lateral (
    select coalesce($1::text, w.time_zone) as name
  ) z,
  lateral (
    select
      $2::date as first_day,
      $3::date + 1 as after_day
  ) b
where w.id = $4;

-- computeWindowedStats(db, '11111111-1111-4111-8111-111111111111', { range: '7d' })
-- answered with 2 rows
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '11111111-1111-4111-8111-111111111111'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '11111111-1111-4111-8111-111111111111'
--   $9 = '11111111-1111-4111-8111-111111111111'
--   $10 = '11111111-1111-4111-8111-111111111111'
--   $11 = '11111111-1111-4111-8111-111111111111'
with
  w as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  w.*,
  false as past,
  f.*
from
  w,
  lateral (
    select
      c.total,
      c.completed,
      (
        select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
        from sessions s
        where
          s.workspace_id = $4
          and ((s.started_at >= w.start and s.started_at < w."end") or s.ended_at is null)
      ) as seconds,
      (
        select count(*)::int
        from sessions s
        where
          s.workspace_id = $5
          and s.ended_at is null
      ) as active,
      f.devices,
      f.online
    from
      (
        select
          coalesce(sum(n), 0)::int as total,
          coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
        from tasks_created_between($6, w.start, w."end")
      ) c,
      (
        select
          coalesce(sum(n), 0)::int as devices,
          coalesce(sum(n) filter (where status <> 'offline'), 0)::int as online
        from device_tallies
        where workspace_id = $7
      ) f
  ) f
union all
select
  w.*,
  true,
  f.*
from
  w,
  lateral (
    select
      c.total,
      c.completed,
      (
        select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
        from sessions s
        where
          s.workspace_id = $8
          and ((s.started_at >= w."previousStart" and s.started_at < w.start))
      ) as seconds,
      (
        select count(*)::int
        from sessions s
        where
          s.workspace_id = $9
          and s.started_at < w.start
          and (s.ended_at is null or s.ended_at >= w.start)
      ) as active,
      f.devices,
      f.online
    from
      (
        select
          coalesce(sum(n), 0)::int as total,
          coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
        from tasks_created_between($10, w."previousStart", w.start)
      ) c,
      (
        select
          count(*)::int as devices,
          (count(*) filter (where (
            select h.status
            from device_status_history h
            where
              h.device_id = d.id
              and h.changed_at < w.start
            order by
              h.changed_at desc,
              h.id desc
            limit 1
          ) <> 'offline'))::int as online
        from devices d
        where
          d.workspace_id = $11
          and d.created_at < w.start
      ) f
  ) f;

-- computeWindowedStats(db, '11111111-1111-4111-8111-111111111111', { range: '24h' }, '88888888-8888-4888-8888-888888888888')
-- answered with 2 rows
--   $1 = null
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '88888888-8888-4888-8888-888888888888'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '88888888-8888-4888-8888-888888888888'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '88888888-8888-4888-8888-888888888888'
--   $9 = '11111111-1111-4111-8111-111111111111'
--   $10 = '88888888-8888-4888-8888-888888888888'
--   $11 = '11111111-1111-4111-8111-111111111111'
--   $12 = '88888888-8888-4888-8888-888888888888'
--   $13 = '11111111-1111-4111-8111-111111111111'
--   $14 = '88888888-8888-4888-8888-888888888888'
--   $15 = '11111111-1111-4111-8111-111111111111'
--   $16 = '88888888-8888-4888-8888-888888888888'
--   $17 = '11111111-1111-4111-8111-111111111111'
--   $18 = '88888888-8888-4888-8888-888888888888'
with
  w as (
    select
      z.name as "timeZone",
      (h.hour at time zone z.name) - interval '23 hours' as start,
      (h.hour at time zone z.name) + interval '1 hour' as "end",
      (h.hour at time zone z.name) - interval '47 hours' as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select date_trunc('hour', now() at time zone z.name) as hour
      ) h
    where w.id = $2
  )
select
  w.*,
  false as past,
  f.*
from
  w,
  lateral (
    select
      c.total,
      c.completed,
      (
        select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
        from sessions s
        where
          s.workspace_id = $3
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $4
              and m.device_id = "s"."device_id"
          )
          and ((s.started_at >= w.start and s.started_at < w."end") or s.ended_at is null)
      ) as seconds,
      (
        select count(*)::int
        from sessions s
        where
          s.workspace_id = $5
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $6
              and m.device_id = "s"."device_id"
          )
          and s.ended_at is null
      ) as active,
      f.devices,
      f.online
    from
      (
        select
          count(*)::int as total,
          (count(*) filter (where t.status = 'completed'))::int as completed
        from tasks t
        where
          t.workspace_id = $7
          and t.created_at >= w.start
          and t.created_at < w."end"
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $8
              and m.device_id = "t"."device_id"
          )
      ) c,
      (
        select
          count(*)::int as devices,
          (count(*) filter (where d.status <> 'offline'))::int as online
        from devices d
        where
          d.workspace_id = $9
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $10
              and m.device_id = "d"."id"
          )
      ) f
  ) f
union all
select
  w.*,
  true,
  f.*
from
  w,
  lateral (
    select
      c.total,
      c.completed,
      (
        select coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0)::int
        from sessions s
        where
          s.workspace_id = $11
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $12
              and m.device_id = "s"."device_id"
          )
          and ((s.started_at >= w."previousStart" and s.started_at < w.start))
      ) as seconds,
      (
        select count(*)::int
        from sessions s
        where
          s.workspace_id = $13
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $14
              and m.device_id = "s"."device_id"
          )
          and s.started_at < w.start
          and (s.ended_at is null or s.ended_at >= w.start)
      ) as active,
      f.devices,
      f.online
    from
      (
        select
          count(*)::int as total,
          (count(*) filter (where t.status = 'completed'))::int as completed
        from tasks t
        where
          t.workspace_id = $15
          and t.created_at >= w."previousStart"
          and t.created_at < w.start
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $16
              and m.device_id = "t"."device_id"
          )
      ) c,
      (
        select
          count(*)::int as devices,
          (count(*) filter (where (
            select h.status
            from device_status_history h
            where
              h.device_id = d.id
              and h.changed_at < w.start
            order by
              h.changed_at desc,
              h.id desc
            limit 1
          ) <> 'offline'))::int as online
        from devices d
        where
          d.workspace_id = $17
          and d.created_at < w.start
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $18
              and m.device_id = "d"."id"
          )
      ) f
  ) f;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'tasks')
-- answered with 1 row
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    select
      b.at,
      coalesce(sum(f.n) filter (where f.status = 'completed'), 0)::int as completed,
      coalesce(sum(f.n) filter (where f.status = 'failed'), 0)::int as failed
    from buckets b
      left join lateral tasks_finished_between($4, "b"."at", "b"."next") f on true
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."completed",
  "points"."failed"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '24h' }, 'tasks', '88888888-8888-4888-8888-888888888888')
-- answered with 1 row
--   $1 = null
--   $2 = '11111111-1111-4111-8111-111111111111'
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '88888888-8888-4888-8888-888888888888'
with
  win as (
    select
      z.name as "timeZone",
      (h.hour at time zone z.name) - interval '23 hours' as start,
      (h.hour at time zone z.name) + interval '1 hour' as "end",
      (h.hour at time zone z.name) - interval '47 hours' as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select date_trunc('hour', now() at time zone z.name) as hour
      ) h
    where w.id = $2
  ),
  buckets as (
    select
      b as at,
      b + interval '1 hour' as next
    from
      win,
      generate_series(win.start, win."end" - interval '1 hour', interval '1 hour') b
  ),
  points as (
    select
      b.at,
      coalesce(sum(f.n) filter (where f.status = 'completed'), 0)::int as completed,
      coalesce(sum(f.n) filter (where f.status = 'failed'), 0)::int as failed
    from buckets b
      left join lateral (
        select
          t.status,
          t.type,
          1::bigint as n
        from tasks t
        where
          t.workspace_id = $3
          and t.status in ('completed', 'failed')
          and t.completed_at >= "b"."at"
          and t.completed_at < "b"."next"
          and exists (
            select 1
            from device_group_members m
            where
              m.group_id = $4
              and m.device_id = "t"."device_id"
          )
      ) f on true
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."completed",
  "points"."failed"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'posts')
-- answered with 1 row
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = 'tiktok'
--   $5 = 'instagram'
--   $6 = 'facebook'
--   $7 = 'twitter'
--   $8 = 'youtube'
--   $9 = 'tinder'
--   $10 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    select
      b.at,
      (count(p.id) filter (where a.platform = $4))::int as "tiktok",
      (count(p.id) filter (where a.platform = $5))::int as "instagram",
      (count(p.id) filter (where a.platform = $6))::int as "facebook",
      (count(p.id) filter (where a.platform = $7))::int as "twitter",
      (count(p.id) filter (where a.platform = $8))::int as "youtube",
      (count(p.id) filter (where a.platform = $9))::int as "tinder"
    from buckets b
      left join (posts p join accounts a on a.id = p.account_id) on p.workspace_id = $10 and p.status = 'published' and p.published_at >= b.at and p.published_at < b.next
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."tiktok",
  "points"."instagram",
  "points"."facebook",
  "points"."twitter",
  "points"."youtube",
  "points"."tinder"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { from: '2025-01-01', to: '2025-01-07' }, 'posts', '88888888-8888-4888-8888-888888888888')
-- answered with 1 row
--   $1 = null
--   $2 = '2025-01-01'
--   $3 = '2025-01-07'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = 'tiktok'
--   $6 = 'instagram'
--   $7 = 'facebook'
--   $8 = 'twitter'
--   $9 = 'youtube'
--   $10 = 'tinder'
--   $11 = '88888888-8888-4888-8888-888888888888'
--   $12 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          $2::date as first_day,
          $3::date + 1 as after_day
      ) b
    where w.id = $4
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    select
      b.at,
      (count(p.id) filter (where a.platform = $5))::int as "tiktok",
      (count(p.id) filter (where a.platform = $6))::int as "instagram",
      (count(p.id) filter (where a.platform = $7))::int as "facebook",
      (count(p.id) filter (where a.platform = $8))::int as "twitter",
      (count(p.id) filter (where a.platform = $9))::int as "youtube",
      (count(p.id) filter (where a.platform = $10))::int as "tinder"
    from buckets b
      left join (posts p join accounts a on a.id = p.account_id and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $11
          and m.device_id = "a"."device_id"
      )) on p.workspace_id = $12 and p.status = 'published' and p.published_at >= b.at and p.published_at < b.next
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."tiktok",
  "points"."instagram",
  "points"."facebook",
  "points"."twitter",
  "points"."youtube",
  "points"."tinder"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'sessions')
-- answered with 1 row
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    select
      b.at,
      round(coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0) / 3600.0, 2)::float8 as hours
    from buckets b
      left join sessions s on s.workspace_id = $4 and s.started_at >= b.at and s.started_at < b.next
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."hours"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'engagement')
-- answered with 1 row
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    select
      b.at,
      coalesce(sum(f.n) filter (where f.type = 'engage' and f.status = 'completed'), 0)::int as actions
    from buckets b
      left join lateral tasks_finished_between($4, "b"."at", "b"."next") f on true
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."actions"
from win
  left join points on true
order by points.at;

-- computeTimeseries(db, '11111111-1111-4111-8111-111111111111', { range: '30d' }, 'devices')
-- answered with 1 row
--   $1 = null
--   $2 = 29
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  ),
  points as (
    with
      spans as (
        select
          h.status,
          h.changed_at as since,
          coalesce(lead(h.changed_at) over (partition by h.device_id order by h.changed_at, h.id), now()) as until
        from device_status_history h
        where
          h.workspace_id = $4
          and h.changed_at < (
            select win."end"
            from win
          )
      )
    select
      b.at,
      round(coalesce(sum(greatest(0, extract(epoch from (least(s.until, b.next, now()) - greatest(s.since, b.at))))) filter (where s.since is not null), 0) / 3600.0, 2)::float8 as hours
    from buckets b
      left join spans s on s.status <> 'offline' and s.since < b.next and s.until > b.at
    group by b.at
    order by b.at
  )
select
  win."timeZone" as "windowZone",
  win.start as "windowStart",
  win."end" as "windowEnd",
  points.at,
  "points"."hours"
from win
  left join points on true
order by points.at;

-- computeLeaderboard(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'devices', { limit: 25, offset: 0 })
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '11111111-1111-4111-8111-111111111111'
--   $7 = '11111111-1111-4111-8111-111111111111'
/* named */
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  p.id,
  p.name,
  p.status,
  coalesce(p.total, 0) as "totalTasks",
  coalesce(p.completed, 0) as "completedTasks",
  coalesce(p.failed, 0) as "failedTasks",
  case when coalesce(p.total, 0) = 0 then 0 else ((200 * p.completed + coalesce(p.total, 0)) / (2 * coalesce(p.total, 0)))::int end as "successRate",
  ((coalesce(s.seconds, 0) + 180) / 360)::float8 / 10 as hours,
  (
    select coalesce(sum(n), 0)
    from device_tallies
    where workspace_id = $4
  )::int as total
from
  (
    select
      d.id,
      d.name,
      d.status,
      t.total,
      t.completed,
      t.failed,
      coalesce(t.total, 0) as sort_key
    from devices d
      left join (
        select
          "device_id" as key,
          count(*)::int as total,
          (count(*) filter (where status = 'completed'))::int as completed,
          (count(*) filter (where status = 'failed'))::int as failed
        from tasks
        where
          workspace_id = $5
          and "created_at" >= (
            select win.start
            from win
          )
          and "created_at" < (
            select win."end"
            from win
          )
        group by "device_id"
      ) t on t.key = d.id
    where d.workspace_id = $6
    order by
      sort_key desc nulls last,
      d.name asc,
      d.id asc
    limit 25
    offset 0
  ) p
  left join lateral (
    select sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)) as seconds
    from sessions s
    where
      s.workspace_id = $7
      and "s"."started_at" >= (
        select win.start
        from win
      )
      and "s"."started_at" < (
        select win."end"
        from win
      )
      and s.device_id = p.id
  ) s on true
order by
  p.sort_key desc nulls last,
  p.name asc,
  p.id asc;

-- computeLeaderboard(db, '11111111-1111-4111-8111-111111111111', { range: '30d' }, 'devices', { sort: 'hours', order: 'asc', limit: 25, offset: 50, groupId: '88888888-8888-4888-8888-888888888888' })
-- sorted by hours, a page past the last row: the total counted apart
-- 1 of 2
--   $1 = null
--   $2 = 29
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '88888888-8888-4888-8888-888888888888'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '11111111-1111-4111-8111-111111111111'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '11111111-1111-4111-8111-111111111111'
--   $9 = '88888888-8888-4888-8888-888888888888'
--   $10 = 50
/* named */
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  p.id,
  p.name,
  p.status,
  coalesce(p.total, 0) as "totalTasks",
  coalesce(p.completed, 0) as "completedTasks",
  coalesce(p.failed, 0) as "failedTasks",
  case when coalesce(p.total, 0) = 0 then 0 else ((200 * p.completed + coalesce(p.total, 0)) / (2 * coalesce(p.total, 0)))::int end as "successRate",
  ((coalesce(p.seconds, 0) + 180) / 360)::float8 / 10 as hours,
  (
    select count(*)
    from device_group_members m
    where
      m.group_id = $4
      and m.workspace_id = $5
  )::int as total
from
  (
    select
      d.id,
      d.name,
      d.status,
      t.total,
      t.completed,
      t.failed,
      s.seconds,
      ((coalesce(s.seconds, 0) + 180) / 360)::float8 / 10 as sort_key
    from devices d
      left join (
        select
          "device_id" as key,
          count(*)::int as total,
          (count(*) filter (where status = 'completed'))::int as completed,
          (count(*) filter (where status = 'failed'))::int as failed
        from tasks
        where
          workspace_id = $6
          and "created_at" >= (
            select win.start
            from win
          )
          and "created_at" < (
            select win."end"
            from win
          )
        group by "device_id"
      ) t on t.key = d.id
      left join (
        select
          s.device_id,
          sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)) as seconds
        from sessions s
        where
          s.workspace_id = $7
          and "s"."started_at" >= (
            select win.start
            from win
          )
          and "s"."started_at" < (
            select win."end"
            from win
          )
        group by s.device_id
      ) s on s.device_id = d.id
    where
      d.workspace_id = $8
      and exists (
        select 1
        from device_group_members m
        where
          m.group_id = $9
          and m.device_id = "d"."id"
      )
    order by
      sort_key asc nulls last,
      d.name asc,
      d.id asc
    limit 25
    offset $10
  ) p
order by
  p.sort_key asc nulls last,
  p.name asc,
  p.id asc;

-- 2 of 2, answered with 1 row
--   $1 = '88888888-8888-4888-8888-888888888888'
--   $2 = '11111111-1111-4111-8111-111111111111'
select
  (
    select count(*)
    from device_group_members m
    where
      m.group_id = $1
      and m.workspace_id = $2
  )::int as total;

-- computeLeaderboard(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'vas', { sort: 'handsOnHours', limit: 25, offset: 0 })
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '11111111-1111-4111-8111-111111111111'
--   $7 = '11111111-1111-4111-8111-111111111111'
--   $8 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  ranked.*,
  (
    select count(*)
    from workspace_members
    where
      workspace_id = $4
      and role = 'va'
  )::int as total
from
  (
    select
      m.user_id as id,
      u.name,
      coalesce(t.total, 0) as "totalTasks",
      coalesce(t.completed, 0) as "completedTasks",
      coalesce(t.failed, 0) as "failedTasks",
      case when coalesce(t.total, 0) = 0 then 0 else ((200 * t.completed + coalesce(t.total, 0)) / (2 * coalesce(t.total, 0)))::int end as "successRate",
      (
        select round(coalesce(sum((s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)), 0) / 3600.0)::int
        from sessions s
          join devices d on d.id = s.device_id
        where
          d.assigned_to_id = m.user_id
          and d.workspace_id = $5
          and "s"."started_at" >= (
            select win.start
            from win
          )
          and "s"."started_at" < (
            select win."end"
            from win
          )
      ) as hours,
      (
        select
          round(coalesce(sum(greatest(0, extract(epoch from least(coalesce(du.ended_at, now()), (
            select win."end"
            from win
          )::timestamptz) - greatest(du.started_at, (
            select win.start
            from win
          )::timestamptz)))), 0) / 3600.0, 1)::float8
        from device_usage du
        where
          du.workspace_id = $6
          and du.user_id = m.user_id
          and du.mode = 'watch'
          and du.started_at < (
            select win."end"
            from win
          )
          and coalesce(du.ended_at, now()) > (
            select win.start
            from win
          )
      ) as "handsOnHours"
    from workspace_members m
      join users u on u.id = m.user_id
      left join (
        select
          "assigned_to_id" as key,
          count(*)::int as total,
          (count(*) filter (where status = 'completed'))::int as completed,
          (count(*) filter (where status = 'failed'))::int as failed
        from tasks
        where
          workspace_id = $7
          and "created_at" >= (
            select win.start
            from win
          )
          and "created_at" < (
            select win."end"
            from win
          )
        group by "assigned_to_id"
      ) t on t.key = m.user_id
    where
      m.workspace_id = $8
      and m.role = 'va'
  ) ranked
order by
  "handsOnHours" desc nulls last,
  name asc,
  id asc
limit 25
offset 0;

-- computeLeaderboard(db, '11111111-1111-4111-8111-111111111111', { range: '90d' }, 'campaigns', { sort: 'name', limit: 25, offset: 0 })
--   $1 = null
--   $2 = 89
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  ranked.*,
  (
    select count(*)
    from campaigns
    where workspace_id = $4
  )::int as total
from
  (
    select
      c.id,
      c.name,
      c.platform,
      c.status,
      count(cs.id)::int as runs,
      (count(cs.id) filter (where cs.status = 'completed'))::int as "completedRuns",
      (count(cs.id) filter (where cs.status = 'failed'))::int as "failedRuns",
      case when count(cs.id) = 0 then 0 else ((200 * count(cs.id) filter (where cs.status = 'completed') + count(cs.id)) / (2 * count(cs.id)))::int end as "successRate",
      (
        select count(*)::int
        from posts p
        where
          p.campaign_id = c.id
          and p.status = 'published'
          and "p"."published_at" >= (
            select win.start
            from win
          )
          and "p"."published_at" < (
            select win."end"
            from win
          )
      ) as "postsPublished"
    from campaigns c
      left join campaign_sessions cs on cs.campaign_id = c.id and "cs"."created_at" >= (
        select win.start
        from win
      ) and "cs"."created_at" < (
        select win."end"
        from win
      )
    where c.workspace_id = $5
    group by
      c.id,
      c.name,
      c.platform,
      c.status
  ) ranked
order by
  "name" asc nulls last,
  name asc,
  id asc
limit 25
offset 0;

-- computeLeaderboard(db, '11111111-1111-4111-8111-111111111111', { range: '7d' }, 'accounts', { sort: 'followersGained', order: 'desc', limit: 25, offset: 0 })
--   $1 = null
--   $2 = 6
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '11111111-1111-4111-8111-111111111111'
--   $5 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  )
select
  ranked.*,
  (
    select count(*)
    from accounts
    where workspace_id = $4
  )::int as total
from
  (
    select
      a.id,
      a.username as name,
      a.platform,
      a.status,
      a.followers,
      a.following,
      (
        select count(*)::int
        from posts p
        where
          p.account_id = a.id
          and p.status = 'published'
          and "p"."published_at" >= (
            select win.start
            from win
          )
          and "p"."published_at" < (
            select win."end"
            from win
          )
      ) as "postsPublished",
      (
        select count(*)::int
        from posts p
        where
          p.account_id = a.id
          and p.status = 'failed'
          and "p"."scheduled_at" >= (
            select win.start
            from win
          )
          and "p"."scheduled_at" < (
            select win."end"
            from win
          )
      ) as "postsFailed",
      coalesce((
        select h.followers
        from account_stats_history h
        where
          h.account_id = a.id
          and h.recorded_at < (
            select win."end"
            from win
          )
        order by
          h.recorded_at desc,
          h.id desc
        limit 1
      ) - coalesce((
        select h.followers
        from account_stats_history h
        where
          h.account_id = a.id
          and h.recorded_at < (
            select win.start
            from win
          )
        order by
          h.recorded_at desc,
          h.id desc
        limit 1
      ), (
        select h.followers
        from account_stats_history h
        where h.account_id = a.id
        order by
          h.recorded_at,
          h.id
        limit 1
      )), 0)::int as "followersGained"
    from accounts a
    where a.workspace_id = $5
  ) ranked
order by
  "followersGained" desc nulls last,
  name asc,
  id asc
limit 25
offset 0;

-- computeAccountGrowth(db, '11111111-1111-4111-8111-111111111111', '55555555-5555-4555-8555-555555555555', { range: '30d' })
--   $1 = null
--   $2 = 29
--   $3 = '11111111-1111-4111-8111-111111111111'
--   $4 = '55555555-5555-4555-8555-555555555555'
--   $5 = '11111111-1111-4111-8111-111111111111'
--   $6 = '55555555-5555-4555-8555-555555555555'
--   $7 = '11111111-1111-4111-8111-111111111111'
with
  win as (
    select
      z.name as "timeZone",
      b.first_day::timestamp at time zone z.name as start,
      b.after_day::timestamp at time zone z.name as "end",
      (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
    from
      workspaces w,
      lateral (
        select coalesce($1::text, w.time_zone) as name
      ) z,
      lateral (
        select
          (now() at time zone z.name)::date - $2::int as first_day,
          (now() at time zone z.name)::date + 1 as after_day
      ) b
    where w.id = $3
  ),
  buckets as (
    select
      d::timestamp at time zone win."timeZone" as at,
      (d::date + 1)::timestamp at time zone win."timeZone" as next
    from
      win,
      generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d
  )
select
  b.at,
  coalesce((
    select h.followers
    from account_stats_history h
    where
      h.account_id = $4
      and h.workspace_id = $5
      and h.recorded_at < b.next
    order by
      h.recorded_at desc,
      h.id desc
    limit 1
  ), 0)::int as followers,
  coalesce((
    select h.following
    from account_stats_history h
    where
      h.account_id = $6
      and h.workspace_id = $7
      and h.recorded_at < b.next
    order by
      h.recorded_at desc,
      h.id desc
    limit 1
  ), 0)::int as following
from buckets b
order by b.at;

-- findAccountId(db, '11111111-1111-4111-8111-111111111111', '55555555-5555-4555-8555-555555555555')
--   $1 = '55555555-5555-4555-8555-555555555555'
--   $2 = '11111111-1111-4111-8111-111111111111'
select "id"
from "accounts"
where
  "id" = $1
  and "workspace_id" = $2;
