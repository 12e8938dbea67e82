-- Phones report five more reasons a run ended: a post the app never confirmed, an app whose screens changed under the
-- recipe, an app version the recipe was not tested on, another account signed in, and a phone locked with a PIN.
-- The column's CHECK (named by PostgreSQL after table and column) lists every code again, old ones first.
ALTER TABLE tasks DROP CONSTRAINT tasks_failure_code_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_failure_code_check CHECK (failure_code IN ('no_agent', 'device_offline', 'ack_timeout', 'lease_expired', 'app_crashed', 'login_required', 'account_blocked', 'rate_limited', 'element_missing', 'network', 'cancelled', 'no_device', 'daily_cap', 'post_unconfirmed', 'app_changed', 'app_version_untested', 'wrong_account', 'device_locked', 'unknown'));
