"""Fleet storage: the sidecars table, the change counters and the one NOTIFY listener per sidecar."""
