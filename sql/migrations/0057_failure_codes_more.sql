-- Phones report three more reasons a run ended: a UI language no recipe for the app is written for, a screen the
-- phone could not read, and work the phone cannot do at all (a carousel). The column's CHECK lists every code again,
-- old ones first, in the order of agent-protocol/src/failures.ts.
ALTER TABLE tasks DROP CONSTRAINT tasks_failure_code_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_failure_code_check CHECK (failure_code IN ('no_agent', 'device_offline', 'ack_timeout', 'lease_expired', 'app_crashed', 'login_required', 'account_blocked', 'rate_limited', 'element_missing', 'network', 'cancelled', 'no_device', 'daily_cap', 'post_unconfirmed', 'app_changed', 'app_version_untested', 'wrong_account', 'device_locked', 'language_untested', 'screen_unreadable', 'unsupported', 'unknown'));

-- The UI language the app showed when the phone's pre-flight read it (its own on Android 13+, else the phone's), so
-- the console can list the phones held back by their language and name it. Null from agents that do not say.
ALTER TABLE task_attempts ADD COLUMN app_locale text;
-- The console's list of phones held back by their language reads the last week's `language_untested` attempts.
CREATE INDEX task_attempts_language_untested_idx ON task_attempts (workspace_id, ended_at DESC) WHERE failure_code = 'language_untested';
