"""SQLModel tables and repositories: SQLite by default, PostgreSQL by URL; Alembic migrations."""
