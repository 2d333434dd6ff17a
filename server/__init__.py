"""Outrider sidecar: guardrails, approvals, recovery and safeguards for AI agents, over gRPC."""
