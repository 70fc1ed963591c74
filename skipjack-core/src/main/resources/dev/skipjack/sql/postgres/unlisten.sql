-- Ends the subscription before the connection goes back to the pool.
UNLISTEN "{{channel}}"
