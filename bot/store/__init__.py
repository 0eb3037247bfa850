"""Persistence: the store port (:class:`Store`) and its backends, SQLite and PostgreSQL.

The store knows no feature's tables: whoever opens it hands it the schema (the list of migrations,
:data:`bot.schema.MIGRATIONS`), and it migrates the database to that list's last version:
:func:`open_sqlite` (a file) and :func:`open_postgres` (a database URL).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.store.base import MAX_INTEGER, Listener, Migration, PlayingHand, Row, Store, Tx
from bot.store.batch import CommitStats, StoreConflict, StoreDuplicate, StoreError
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore

__all__ = ["MAX_INTEGER", "CommitStats", "Listener", "Migration", "PlayingHand", "Row", "Store", "StoreConflict",
           "StoreDuplicate", "StoreError", "Tx", "open_postgres", "open_sqlite"]


async def open_sqlite(path: str, *, schema: Sequence[Migration]) -> Store:
    """The SQLite database at ``path`` (created if need be), migrated to the last version of ``schema``."""
    return await SqliteStore.connect(path, schema=schema)


async def open_postgres(dsn: str, *, schema: Sequence[Migration], pool_size: int = 5) -> Store:
    """The PostgreSQL database at ``dsn``, migrated to the last version of ``schema``."""
    return await PostgresStore.connect(dsn, schema=schema, pool_size=pool_size)
