-- Phones report three more reasons a run ended: a UI language no recipe for the app is written for, a screen the
-- phone could not read, and work the phone cannot do at all (a carousel). The column's CHECK lists every code again,
-- old ones first, in the order of agent-protocol/src/failures.ts.
ALTER TABLE tasks DROP CONSTRAINT tasks_failure_code_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_failure_code_check CHECK (failure_code IN ('no_agent', 'device_offline', 'ack_timeout', 'lease_expired', 'app_crashed', 'login_required', 'account_blocked', 'rate_limited', 'element_missing', 'network', 'cancelled', 'no_device', 'daily_cap', 'post_unconfirmed', 'app_changed', 'app_version_untested', 'wrong_account', 'device_locked', 'language_untested', 'screen_unreadable', 'unsupported', 'unknown'));
