-- Two-phase mode (F-5): rolls back a prepared job transaction whose external call did not happen.
ROLLBACK PREPARED '{{gid}}'
