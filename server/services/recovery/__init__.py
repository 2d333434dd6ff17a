"""RecoveryService use cases: the registry, health checks, the ladder, the control channel, kills and
cascades; `feature.py` assembles them."""
