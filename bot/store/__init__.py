"""Persistence: the store port (:class:`Store`) and its backends, SQLite and PostgreSQL.

``Store.open(path)`` opens SQLite; :func:`open_store` picks the backend from the settings
(``STUDBOT_DATABASE_URL`` -> PostgreSQL, else the ``STUDBOT_DB`` file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.schema import MIGRATIONS, RELEASED_SCHEMA
from bot.store.base import MAX_INTEGER, Listener, Migration, PlayingHand, Row, Store, Tx
from bot.store.batch import CommitStats, StoreConflict, StoreError

if TYPE_CHECKING:
    from bot.core.config import Settings

__all__ = ["MAX_INTEGER", "MIGRATIONS", "RELEASED_SCHEMA", "CommitStats", "Listener", "Migration", "PlayingHand",
           "Row", "Store", "StoreConflict", "StoreError", "Tx", "open_store"]


async def open_store(settings: Settings) -> Store:
    """The database the settings name: PostgreSQL at ``database_url`` if set, else the SQLite file ``db_path``."""
    if settings.database_url:
        from bot.store.postgres import PostgresStore

        return await PostgresStore.connect(settings.database_url, pool_size=settings.db_pool_size)
    return await Store.open(settings.db_path)
