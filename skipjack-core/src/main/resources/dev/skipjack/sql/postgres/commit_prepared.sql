-- Two-phase mode (F-5): commits a prepared job transaction once the external call happened.
COMMIT PREPARED '{{gid}}'
