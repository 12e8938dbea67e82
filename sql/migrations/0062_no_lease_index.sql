-- The lease watchdog's index (0005) is gone. It was keyed on lease_expires_at, which every lease, ack and progress
-- report moves, so each of those wrote an entry in it (a progress report once a second for every running phone).
-- The watchdog finds expired leases among the attempts out, one per phone at most, through the index of attempts
-- out per phone (tasks_one_out_per_device, the same predicate): a few thousand entries read every two seconds on
-- the largest farm, against an index entry written for every report.
DROP INDEX tasks_leased_idx;
