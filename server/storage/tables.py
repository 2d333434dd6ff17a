"""Every SQLModel table: the shared ones (server/storage/shared_tables.py) and each feature's; importing
this module registers them all on the metadata. A schema change needs an Alembic migration in
migrations/versions."""

from __future__ import annotations

# Each feature keeps its tables in its own package; importing them here registers them on the metadata.
from server.storage.access import tables as _access  # noqa: F401
from server.storage.approvals import tables as _approvals  # noqa: F401
from server.storage.fleet import tables as _fleet  # noqa: F401
from server.storage.gateway import tables as _gateway  # noqa: F401
from server.storage.notifications import tables as _notifications  # noqa: F401
from server.storage.recovery import tables as _recovery  # noqa: F401
from server.storage.safeguards import tables as _safeguards  # noqa: F401
from server.storage.shared_tables import AuditRow, CounterRow
from server.storage.supervisor import tables as _supervisor  # noqa: F401

__all__ = ["AuditRow", "CounterRow"]
