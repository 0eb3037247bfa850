"""The store tests' fixture: one database of each backend (tests/test_store_*.py)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Protocol

import pytest

from bot.schema import MIGRATIONS
from bot.store import Migration, Store, open_postgres, open_sqlite
from engine import Stakes


class Opener(Protocol):
    """Opens the test's database, migrated to ``schema`` (today's unless a test stands in an older build's)."""

    def __call__(self, *, schema: Sequence[Migration] = ...) -> Awaitable[Store]: ...


BACKENDS = ["sqlite", "postgresql"]
T0 = 1_700_000_000.0


@pytest.fixture(params=BACKENDS)
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Opens (and reopens) one database of the backend the test runs on: a SQLite file, or a fresh
    PostgreSQL database (``pg_database``: the test fails if PostgreSQL cannot start)."""
    if request.param == "sqlite":
        path = str(tmp_path / "store.db")

        def sqlite(*, schema: Sequence[Migration] = MIGRATIONS) -> Awaitable[Store]:
            return open_sqlite(path, schema=schema)

        return sqlite
    dsn: str = request.getfixturevalue("pg_database")

    def postgresql(*, schema: Sequence[Migration] = MIGRATIONS) -> Awaitable[Store]:
        return open_postgres(dsn, schema=schema, pool_size=3)

    return postgresql


def drop_tables_after(version: int) -> str:
    """DROP statements for the tables and columns the migrations after ``version`` create: with them a
    database is again as a build of that version left it (for the tests that migrate such a database). They
    come first in a script: a table the script drops by hand may have columns added later."""
    created = [f"ALTER TABLE {m[1]} DROP COLUMN {m[2]}" if m[1] else f"DROP TABLE {m[3]}" if m[3]
               else f"DROP INDEX {m[4]}"  # before its columns (SQLite drops no column an index names)
               for script in MIGRATIONS[version:] if isinstance(script, str)
               for m in re.finditer(r"ALTER TABLE (\w+) ADD COLUMN (\w+)|CREATE TABLE (\w+)|CREATE INDEX (\w+)",
                                    script)]
    return "".join(f"{statement}; " for statement in reversed(created))


def stakes() -> Stakes:
    return Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


async def new_table(store: Store) -> int:
    async with store.atomic() as tx:
        return await tx.create_table(platform="p", community="p:c", channel="ch", creator="u", stakes=stakes(),
                                     timer=60, now=T0)
