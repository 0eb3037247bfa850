"""The one place that wires the bot: stores, clocks, messengers and the services that hold each other."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.app import StudBot
from bot.chips.audit import AuditReport, Check, audit
from bot.cluster.cluster import Cluster
from bot.core.config import Settings
from bot.core.lifecycle import Work
from bot.core.ports import Clock, Messenger
from bot.history import History
from bot.platform.answers import Answers
from bot.schema import MIGRATIONS
from bot.stats.answers import StatsAnswers
from bot.stats.recorder import StatsRecorder
from bot.store import Migration, Store, open_postgres, open_sqlite
from bot.table import delivery
from bot.table.commands import TableCommands
from bot.table.dealer import Dealer
from bot.table.fairness import Fairness
from bot.table.games import MixRotation
from bot.table.hosting import Hosting
from bot.table.output import Languages, TableOutput
from bot.table.runtime import NoGuard, TableHooks, Tables
from bot.table.seating import Seating
from bot.table.settling import Settling
from bot.table.timebank import TimeBankRefill
from bot.tourney.audit import tournament_problems
from bot.tourney.service import Tourneys

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


def build_bot(settings: Settings, *, store: Store, messenger: Messenger, clock: Clock,
              rng: random.Random | None = None, files_dir: Path | None = None) -> StudBot:
    """A :class:`~bot.app.StudBot` and its parts, wired (not started: ``await bot.start()``).

    ``rng``: a seeded one (script mode, tests) makes every draw the same each run: the server seeds
    derived from it, the house bots' decisions and the sit-and-go seat draws; else ``secrets``.
    ``files_dir``: where 'verify' writes a hand's file (the console)."""
    rng = rng if rng is not None else secrets.SystemRandom()
    bot_rng = random.Random(rng.getrandbits(64))
    script_key = None if isinstance(rng, random.SystemRandom) else rng.getrandbits(256).to_bytes(32, "big")
    fair = Fairness(store=store, script_key=script_key, files_dir=files_dir)
    hooks: list[TableHooks] = []  # run in this order at each settlement; filled below
    output = TableOutput(messenger=messenger, clock=clock, store=store,
                         languages=Languages(store=store, settings=settings), hooks=hooks)
    if settings.instance:  # cluster mode: this process holds only the tables it has a lease on
        guard: Cluster | NoGuard = Cluster(store=store, clock=clock, settings=settings)
    else:
        guard = NoGuard(store=store)
    tables = Tables(store=store, clock=clock, settings=settings, guard=guard)
    work = Work()
    deliveries = delivery.Deliveries(store=store, messenger=messenger)
    dealer = Dealer(store=store, clock=clock, settings=settings, fair=fair, output=output, deliveries=deliveries,
                    tables=tables, hooks=hooks, guard=guard, work=work, rng=bot_rng)
    seating = Seating(dealer=dealer, output=output, tables=tables, store=store, settings=settings, clock=clock)
    commands = TableCommands(dealer=dealer, output=output, fair=fair, store=store, settings=settings)
    tourneys = Tourneys(dealer=dealer, output=output, tables=tables, commands=commands, store=store, clock=clock,
                        settings=settings, fair=fair, rng=rng)
    settling = Settling(store=store, output=output, clock=clock)
    hooks += [tourneys, StatsRecorder(), TimeBankRefill(), settling, MixRotation(output=output)]
    bot = StudBot(store=store, clock=clock, settings=settings, fair=fair, output=output, tables=tables,
                  dealer=dealer, guard=guard, seating=seating, commands=commands, tourneys=tourneys,
                  history=History(store, tournaments=tourneys), stats=StatsAnswers(store=store, clock=clock),
                  deliveries=deliveries, work=work, answers=Answers(store), audit_checks=AUDIT_CHECKS,
                  handlers=[Hosting(dealer=dealer, seating=seating, output=output, store=store, clock=clock),
                            settling])
    guard.bind(bot)  # the one back-reference, typed as a LocalBot
    return bot
