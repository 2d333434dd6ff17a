"""Fleet use cases: the sidecars sharing one database (identity, heartbeat, health) and the change-feed port."""
