"""Opening the database for the subcommands that work on it directly (`fleet`, `policy status`, `audit`,
`notifications`): one message and one exit code for a database that cannot be opened."""

from __future__ import annotations

import sys

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from server.config import Config
from server.storage.db import create_db_engine

CANNOT_OPEN = 2  # the exit code of a subcommand whose database cannot be opened


def open_engine(config: Config) -> Engine | None:
    """The configured database's engine, or None after saying on stderr why it cannot be opened."""
    try:
        return create_db_engine(config.database_url())
    except (SQLAlchemyError, ValueError) as exc:
        print(f"outrider: cannot open the database: {exc}", file=sys.stderr)
        return None
