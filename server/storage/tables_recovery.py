"""SQLModel tables of the recovery feature (migration on its own Alembic branch from 0002)."""

from __future__ import annotations
