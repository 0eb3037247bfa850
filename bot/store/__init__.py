"""Persistence: the store port (:class:`Store`) and its backends, SQLite and PostgreSQL.

``Store.open(path)`` opens SQLite; :func:`open_store` picks the backend from the settings
(``STUDBOT_DATABASE_URL`` -> PostgreSQL, else the ``STUDBOT_DB`` file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import LARGEST_INTEGER, Listener, Migration, PlayingHand, Row, Store, Tx
from .batch import CommitStats, StoreConflict, StoreError
from .migrations import MIGRATIONS, RELEASED_SCHEMA

if TYPE_CHECKING:
    from ..config import Settings

__all__ = ["LARGEST_INTEGER", "MIGRATIONS", "RELEASED_SCHEMA", "CommitStats", "Listener", "Migration", "PlayingHand",
           "Row", "Store", "StoreConflict", "StoreError", "Tx", "open_store"]


async def open_store(settings: Settings) -> Store:
    """The database the settings name: PostgreSQL at ``database_url`` if set, else the SQLite file ``db_path``."""
    if settings.database_url:
        from .postgres import PostgresStore

        return await PostgresStore.connect(settings.database_url, pool_size=settings.db_pool_size)
    return await Store.open(settings.db_path)
