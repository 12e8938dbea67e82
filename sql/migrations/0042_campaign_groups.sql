-- A campaign may take every account on the phones of a group (issue #42), kept in step as phones join or leave it.
-- Membership is read when the day is planned (each minute) and again when a run falls due, never copied: a phone
-- that leaves the group stops getting the campaign's runs at once, one that joins gets them from the next round.
ALTER TABLE campaigns ADD COLUMN group_id uuid REFERENCES device_groups (id) ON DELETE SET NULL;
CREATE INDEX campaigns_group_idx ON campaigns (group_id) WHERE group_id IS NOT NULL;

-- A routine for the group runs for each account on the group's phones (account_id stays null); an account routine
-- runs for its one account as before.
ALTER TABLE routines ADD COLUMN for_group boolean NOT NULL DEFAULT false;
ALTER TABLE routines ADD CONSTRAINT routines_for_group_no_account CHECK (NOT for_group OR account_id IS NULL);

-- A group routine has one run per account in a round: the plan's key names the account.
DROP INDEX campaign_sessions_plan_key;
CREATE UNIQUE INDEX campaign_sessions_plan_key ON campaign_sessions (routine_id, account_id, plan_day, round)
  WHERE plan_day IS NOT NULL AND status <> 'cancelled';
