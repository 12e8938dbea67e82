-- Fleet health (issue #41): what a farm host reads of each phone beyond "adb lists it", the host's USB bus, and the
-- settings an operator gives the host for its recovery ladder. One row per phone, replaced by each report; the rungs
-- the host takes are activities, the alerts webhook deliveries.
CREATE TABLE device_health (
  device_id            uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  battery_level        integer,
  temperature_c        real,
  battery_health       text,
  free_bytes           bigint,
  total_bytes          bigint,
  uptime_seconds       double precision,
  android_version      text,
  app_versions         jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Null while the phone answers; else what failed ("The shell did not answer within 5 s.").
  unresponsive_reason  text,
  vitals_at            timestamptz(3),
  health_at            timestamptz(3),
  -- Where it hangs on the host's USB bus (from the host's last tree).
  usb_controller       text,
  usb_hub              text,
  usb_port             integer
);
CREATE INDEX device_health_workspace_idx ON device_health (workspace_id);

-- The host's last USB report (controllers, phones' places, capacity warnings, uhubctl's state) and its settings.
ALTER TABLE hosts ADD COLUMN usb jsonb;
ALTER TABLE hosts ADD COLUMN usb_at timestamptz(3);
ALTER TABLE hosts ADD COLUMN fleet_settings jsonb;
