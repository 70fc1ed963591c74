-- Subscribes this session to the jobs table's insert notifications (F-16). The channel is built
-- from validated schema and prefix names only (InsertNotifications.channel): LISTEN takes no
-- bind parameter.
LISTEN "{{channel}}"
