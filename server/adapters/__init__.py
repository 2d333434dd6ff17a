"""Outbound I/O that is neither storage nor gRPC serving: the policy file, network probes."""
