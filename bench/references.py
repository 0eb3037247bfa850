"""References for ``python -m bench.bot``, measured in the same run: the engine alone, and one
bare ``INSERT; COMMIT`` per backend (the least a durable action can cost there).

Each comes with its processor time per operation (``time.process_time``, every thread).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import aiosqlite

from bot.core.model import HandSetup
from engine import Action, Card, Deck, DeckDealer, Hand

from .tables import Stats, Timed

ACTIONS_TABLE = ("CREATE TABLE IF NOT EXISTS bench_actions (hand_id INTEGER NOT NULL, seq INTEGER NOT NULL, "
                 "action TEXT NOT NULL, seat_no INTEGER NOT NULL, by_timeout INTEGER NOT NULL DEFAULT 0, "
                 "at REAL NOT NULL, PRIMARY KEY (hand_id, seq))")
INSERT = "INSERT INTO bench_actions (hand_id, seq, action, seat_no, by_timeout, at) VALUES (?, ?, ?, ?, ?, ?)"
INSERT_PG = INSERT.replace("?, ?, ?, ?, ?, ?", "$1, $2, $3, $4, $5, $6")
PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON")
"""The bot's own (bot/store)."""


def row(i: int) -> tuple[int, int, str, int, int, float]:
    return i // 10, i % 10, "call", i % 2, 0, 1.7e9 + i


def _build(setup: HandSetup) -> Hand:
    deck = Deck.from_cards([Card.from_str(c) for c in setup.deck])
    return Hand(stakes=setup.stakes, names=[p.name for p in setup.players], stacks=[p.stack for p in setup.players],
                dealer=DeckDealer(deck), game=setup.game)


def engine_alone(played: list[tuple[HandSetup, list[Action]]], *, repeat: int) -> Stats:
    """The same hands and actions through ``Hand.act`` alone, each act timed (``repeat`` passes pooled);
    the processor time covers the whole passes (building each hand included)."""
    stats = Stats()
    perf = time.perf_counter
    cpu = time.process_time()
    for _ in range(repeat):
        for setup, actions in played:
            hand = _build(setup)
            act = hand.act
            for action in actions:
                started = perf()
                act(action)
                stats.latencies.append(perf() - started)
    stats.elapsed = sum(stats.latencies)
    stats.cpu = time.process_time() - cpu
    return stats


def sqlite_bare(path: Path, *, commits: int) -> Stats:
    """One INSERT + COMMIT at a time with sqlite3 (the bot's PRAGMAs), each transaction timed."""
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in PRAGMAS:
        db.execute(pragma)
    db.execute(ACTIONS_TABLE)
    stats = Stats()
    perf = time.perf_counter
    try:
        with Timed(stats):
            for i in range(commits):
                started = perf()
                db.execute("BEGIN IMMEDIATE")
                db.execute(INSERT, row(i))
                db.execute("COMMIT")
                stats.latencies.append(perf() - started)
    finally:
        db.close()
    return stats


async def aiosqlite_bare(path: Path, *, commits: int) -> Stats:
    """The same through aiosqlite (each statement a hop to its thread): how the bot's SQLite store wrote
    before its writes moved into the loop's thread (bot/store/inline.py); it still reads this way."""
    stats = Stats()
    perf = time.perf_counter
    async with aiosqlite.connect(path, isolation_level=None) as db:
        for pragma in PRAGMAS:
            await db.execute(pragma)
        await db.execute(ACTIONS_TABLE)
        with Timed(stats):
            for i in range(commits):
                started = perf()
                await db.execute("BEGIN IMMEDIATE")
                await db.execute(INSERT, row(i))
                await db.execute("COMMIT")
                stats.latencies.append(perf() - started)
    return stats
