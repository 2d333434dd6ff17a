"""The recovery feature's rules: the ladder, health checks, the control channel's vocabulary, the kill
switch with saga handoff, cascade detection and the recovery event stream."""
