"""The versioned schema: one entry per version, in portable SQL (see :mod:`bot.store.dialect`).

Append ONE entry per schema change. A string is run statement by statement (its DDL in the
backend's types); a function runs in the migration's transaction (:class:`~bot.store.base.Tx`).
Both backends run the same list: SQLite keeps the version in ``PRAGMA user_version``,
PostgreSQL in the table ``schema_version``.
"""

from __future__ import annotations

from bot.chips import ledger
from bot.cluster import leases
from bot.platform import updates
from bot.stats import rows as stats_rows
from bot.store.base import Migration
from bot.table import fairness, rebuys, session, timebank
from bot.tourney.store import GAME_MIGRATION as TOURNEY_GAME_MIGRATION
from bot.tourney.store import TOURNEY_MIGRATION

RELEASED_SCHEMA = 9
"""The schema version of the last release: a database the released bot left (a hand in progress)
must open with the code of today (tests/test_store_released.py builds one on each backend from
``MIGRATIONS[:RELEASED_SCHEMA]`` and tests/data/released_schema.json). Migrations after it are
appended below; on a release, raise this to ``len(MIGRATIONS)`` and write the data file again
with that release (``python tests/released_schema.py``)."""

MIGRATIONS: list[Migration] = [
    # 1: the first schema
    """
    CREATE TABLE wallets (
        community TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL,
        balance INTEGER NOT NULL CHECK (balance >= 0), refilled_on TEXT,
        PRIMARY KEY (community, user_id)
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY, platform TEXT NOT NULL, community TEXT NOT NULL, channel TEXT NOT NULL,
        creator TEXT NOT NULL, stakes TEXT NOT NULL, timer INTEGER NOT NULL, running INTEGER NOT NULL DEFAULT 0,
        hand_no INTEGER NOT NULL DEFAULT 0, board_ref TEXT, next_hand_at REAL, open INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX tables_open_channel ON tables (platform, channel) WHERE open = 1;
    CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES tables (id), seat_no INTEGER NOT NULL, user_id TEXT NOT NULL,
        name TEXT NOT NULL, stack INTEGER NOT NULL CHECK (stack >= 0), is_bot INTEGER NOT NULL DEFAULT 0,
        sitting_out INTEGER NOT NULL DEFAULT 0, leaving INTEGER NOT NULL DEFAULT 0,
        timeouts INTEGER NOT NULL DEFAULT 0, unreachable INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat_no), UNIQUE (table_id, user_id)
    );
    CREATE TABLE hands (
        id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables (id), hand_no INTEGER NOT NULL,
        setup TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('playing', 'done', 'void')),
        deadline REAL, hand_file TEXT, summary TEXT, started_at REAL NOT NULL, finished_at REAL,
        UNIQUE (table_id, hand_no)
    );
    CREATE INDEX hands_playing ON hands (status) WHERE status = 'playing';
    CREATE TABLE actions (
        hand_id INTEGER NOT NULL REFERENCES hands (id), seq INTEGER NOT NULL, action TEXT NOT NULL,
        seat_no INTEGER NOT NULL, by_timeout INTEGER NOT NULL DEFAULT 0, at REAL NOT NULL,
        PRIMARY KEY (hand_id, seq)
    );
    """,
    # 2: each action carries the deadline of the turn after it, so that recording an
    # action is one INSERT (one round trip, a transaction of its own) instead of four.
    """
    ALTER TABLE actions ADD COLUMN deadline REAL;
    """,
    # 3: how the table's board is shown: 'image' (a PNG with the text beside it) or 'text'.
    """
    ALTER TABLE tables ADD COLUMN view TEXT NOT NULL DEFAULT 'image';
    """,
    # 4: languages: the table's (its public board and lines) and each user's (private
    # messages sent later, such as their cards): the platform's locale last seen, or the
    # language they chose with 'lang' (chosen = 1, which a locale does not override).
    """
    ALTER TABLE tables ADD COLUMN lang TEXT NOT NULL DEFAULT 'en';
    CREATE TABLE user_langs (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        lang TEXT NOT NULL,
        chosen INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (platform, user_id)
    );
    """,
    # 5: the chip ledger (bot/chips/ledger.py), opened with the wallets and seats as they are.
    ledger.migrate,
    # 6: what reached the table: how many of a hand's events are known to be announced (0 for
    # a new hand; NULL once all are, and for the hands before this); on start the rest is
    # announced again (bot/table/delivery.py). And each platform request (a Discord interaction) in
    # flight, so that one cut off by a crash is still answered after the restart.
    """
    ALTER TABLE hands ADD COLUMN announced INTEGER DEFAULT 0;
    UPDATE hands SET announced = NULL;
    CREATE TABLE pending_answers (
        platform TEXT NOT NULL, id TEXT NOT NULL, token TEXT NOT NULL, user_id TEXT NOT NULL, locale TEXT,
        channel TEXT NOT NULL, command TEXT NOT NULL, received_at REAL NOT NULL,
        PRIMARY KEY (platform, id)
    );
    """,
    # 7: sit-and-go tournaments, their players, places and prizes (bot/tourney/store.py).
    TOURNEY_MIGRATION,
    # 8: provably fair decks (bot/table/fairness.py): server seeds per table and hand, player seeds, reveal setting.
    fairness.MIGRATION,
    # 9: per-player rows of settled hands for the stats (bot/stats/rows.py), backfilled from the hand files.
    stats_rows.migrate,
    # 10: cluster mode (bot/cluster/cluster.py): table leases and the inbox of commands forwarded to a table's holder.
    leases.MIGRATION,
    # 11: update ids a platform delivered, each applied once (bot/platform/updates.py).
    updates.MIGRATION,
    # 12: house bots have no wallets: each community's bots buy in from one bankroll (bot/chips/ledger.py).
    ledger.close_bot_wallets,
    # 13: the stats count cash-table hands only; a sit-and-go's results are its places (bot/stats/rows.py).
    stats_rows.CASH_ONLY_MIGRATION,
    # 14: a kick or a stop during a hand takes effect when the hand ends (bot/table/seating.py, bot/table/dealer.py):
    # the seat kicked plays the hand out, the table stopped closes after it; kept across a restart.
    """
    ALTER TABLE seats ADD COLUMN kicked INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tables ADD COLUMN closing INTEGER NOT NULL DEFAULT 0;
    """,
    # 15: a cash table's time bank and pause (bot/table/timebank.py), kept across a restart.
    timebank.MIGRATION,
    # 16: rebuys waiting for the hand to end, host approvals of joins and rebuys (bot/table/rebuys.py).
    rebuys.MIGRATION,
    # 17: a cash table's sessions settled, with their ledgers and payments, and its chip value (bot/table/session.py).
    session.MIGRATION,
    # 18: the game a table deals (GAMES.md: stud8, stud, razz or the mix), the mix's hands per game and the hand
    # number the mix began after (its rotation starts with Razz then).
    """
    ALTER TABLE tables ADD COLUMN game TEXT NOT NULL DEFAULT 'stud8';
    ALTER TABLE tables ADD COLUMN mix_hands INTEGER NOT NULL DEFAULT 8;
    ALTER TABLE tables ADD COLUMN mix_start INTEGER NOT NULL DEFAULT 0;
    """,
    # 19: a sit-and-go's game (bot/tourney/store.py): stud8, stud, razz, or mix (G8: the game changes with each level).
    TOURNEY_GAME_MIGRATION,
    # 20: each stats row names its hand's game, backfilled from the hands' setups (bot/stats/rows.py): 'stats razz'.
    stats_rows.GAME_MIGRATION,
]
