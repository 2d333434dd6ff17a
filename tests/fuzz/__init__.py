"""The standing fuzz suite: every RPC, generated from the service descriptors."""
