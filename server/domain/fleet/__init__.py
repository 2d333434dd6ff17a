"""Fleet rules: when a sidecar sharing the database counts as alive, gone or stopped."""
