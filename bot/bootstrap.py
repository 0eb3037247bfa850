"""The one place that wires the bot: stores, clocks, messengers and the services that hold each other."""

from __future__ import annotations

import random
import secrets
from pathlib import Path

from bot.app import StudBot
from bot.cluster.cluster import Cluster
from bot.core.config import Settings
from bot.core.lifecycle import Work
from bot.core.ports import Clock, Messenger
from bot.history import History
from bot.stats.answers import StatsAnswers
from bot.stats.recorder import StatsRecorder
from bot.store import Store
from bot.table import delivery
from bot.table.commands import TableCommands
from bot.table.dealer import Dealer
from bot.table.fairness import Fairness
from bot.table.output import Languages, TableOutput
from bot.table.runtime import NoGuard, TableHooks, Tables
from bot.table.seating import Seating
from bot.tourney.service import Tourneys

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
    hooks += [tourneys, StatsRecorder()]
    bot = StudBot(store=store, clock=clock, settings=settings, fair=fair, output=output, tables=tables,
                  dealer=dealer, guard=guard, seating=seating, commands=commands, tourneys=tourneys,
                  history=History(store), stats=StatsAnswers(store=store, clock=clock), deliveries=deliveries,
                  work=work)
    guard.bind(bot)  # the one back-reference, typed as a LocalBot
    return bot
