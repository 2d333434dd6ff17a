"""Reviewer notifications: the outbox planner (what to send where), the delivery worker, settings."""
