"""SQLModel tables of the approvals feature (migration on its own Alembic branch from 0002)."""

from __future__ import annotations
