"""Alembic's environment for the training database: run on the connection `kb.training.database`
passes in (`config.attributes["connection"]`), all migrations in one transaction."""

from __future__ import annotations

from alembic import context

from kb.training.tables import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
