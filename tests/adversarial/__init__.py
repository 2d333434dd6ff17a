"""What an attacker holding one agent token tries, over real gRPC with real tokens (issue 12)."""
