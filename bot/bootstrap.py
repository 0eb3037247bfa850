"""The one place that wires the bot: stores, clocks, messengers and the services that hold each other."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.chips.audit import AuditReport, Check, audit
from bot.core.config import Settings
from bot.schema import MIGRATIONS
from bot.store import Migration, Store, open_postgres, open_sqlite
from bot.tourney.audit import tournament_problems

AUDIT_CHECKS: tuple[Check, ...] = (tournament_problems,)
"""The audits of the parts that hold chips of their own, run with the chips' (:func:`bot.chips.audit.audit`)."""


async def open_store(settings: Settings, *, schema: Sequence[Migration] = MIGRATIONS) -> Store:
    """The database the settings name, migrated to ``schema``: PostgreSQL at ``database_url`` if set,
    else the SQLite file ``db_path``."""
    if settings.database_url:
        return await open_postgres(settings.database_url, schema=schema, pool_size=settings.db_pool_size)
    return await open_sqlite(settings.db_path, schema=schema)


async def audit_file(path: str, *, replay: bool = False, settings: Settings | None = None) -> AuditReport:
    """Open the database (migrating it to the latest schema if it is older) and audit it: the
    SQLite file ``path``, or PostgreSQL when ``settings`` name a database URL."""
    if settings is not None and settings.database_url:
        store = await open_store(settings)
    else:
        store = await open_sqlite(path, schema=MIGRATIONS)
    try:
        return await audit(store, checks=AUDIT_CHECKS, replay=replay)
    finally:
        await store.close()


def audit_main(argv: list[str] | None = None, *, default_db: str | None = None,
               settings: Settings | None = None) -> int:
    """``studbot audit [--db FILE]``: print the audit; the status is 0 if it passed, 1 if not
    (2: no such database)."""
    parser = argparse.ArgumentParser(prog="studbot audit", description="The audit: every chip in the database "
                                                                       "against the ledger (:mod:`bot.chips.ledger`).")
    parser.add_argument("--db", default=None, help="the SQLite file (default: STUDBOT_DATABASE_URL if set, "
                        "else STUDBOT_DB or studbot.db)")
    parser.add_argument("--replay", action="store_true",
                        help="also replay every settled hand and check the ledger against it (slower)")
    args = parser.parse_args(argv)
    path = args.db or default_db or os.environ.get("STUDBOT_DB") or "studbot.db"
    if args.db is not None or settings is None or not settings.database_url:
        settings = None  # the SQLite file
    if settings is None and not Path(path).is_file():
        print(f"studbot audit: no database at {path}", file=sys.stderr)
        return 2
    report = asyncio.run(audit_file(path, replay=args.replay, settings=settings))
    print(report.summary())
    return 0 if report.ok else 1


# --- building the bot ---
