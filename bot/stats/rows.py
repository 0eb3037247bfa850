"""One ``hand_players`` row per player per settled cash-table hand: what the stats add up.

A sit-and-go's hands have no rows (the settlement writes none; schema 13 removed the older
ones): they are played in tournament chips, which are not money, and its players' results are
their places and prizes (``tourney_players``). House bots have rows, but no wallet, so no
ranking lists them (bot/stats/book.py).

Definitions (one row is one player dealt into one settled hand; a voided hand has none):

- ``dealt``: 1 (the row exists because the player was dealt in).
- ``vpip`` ("voluntarily put chips in the pot"): 1 if on third street the player called,
  completed, bet or raised, putting in at least one chip; antes and the bring-in are
  forced, so they do not count, and neither does a check or a fold. A bring-in who then
  calls a completion or re-raises did put chips in voluntarily: 1.
- ``showdown``: 1 if the hand reached a showdown (two or more players had not folded
  when it ended) and this player had not folded.
- ``won_showdown``: 1 if at that showdown the player got chips from at least one
  contested pot (a pot with two or more players eligible for it).
- ``high_halves`` / ``low_halves``: how many contested pots of the showdown the player
  won or shared the high of / the low of. With no qualifying low the high takes the
  whole pot, which counts as winning its high.
- ``scoops``: how many contested pots of the showdown the player took alone: in Stud Hi-Lo
  the only high winner and the only low winner, or the only high winner when no low
  qualified (the pots that :func:`bot.text.results.pot_line` calls scooped, "Bot2 scoops");
  in Stud (G6) and Razz (G7), whose pots go whole to the best high or the best low, a pot
  won unshared.
- ``net``: the player's stack at the end of the hand minus at the start.
- ``game``: the hand's game (``stud8``, ``stud``, ``razz``; G8: a mix table's hand has its own).
- ``won``: the chips the player took from the hand's pots (every pot, uncontested ones
  included; chips nobody called, handed back, are not winnings). "Biggest pot won" is
  the largest ``won`` of the player's hands.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.core.model import Player
from bot.store import Tx
from engine import Action, EngineError, Hand
from engine.events import ActionTaken
from engine.handfile import HandFile, replay_hand

log = logging.getLogger(__name__)

VOLUNTARY = frozenset({Action.CALL, Action.COMPLETE, Action.BET, Action.RAISE})
"""Third-street actions that count for VPIP (the bring-in is forced)."""

SCHEMA = """
CREATE TABLE hand_players (
    hand_id INTEGER NOT NULL REFERENCES hands (id), community TEXT NOT NULL, user_id TEXT NOT NULL,
    name TEXT NOT NULL, dealt INTEGER NOT NULL DEFAULT 1, vpip INTEGER NOT NULL, showdown INTEGER NOT NULL,
    won_showdown INTEGER NOT NULL, high_halves INTEGER NOT NULL, low_halves INTEGER NOT NULL,
    scoops INTEGER NOT NULL, net INTEGER NOT NULL, won INTEGER NOT NULL, finished_at REAL NOT NULL,
    PRIMARY KEY (hand_id, user_id)
);
CREATE INDEX hand_players_player ON hand_players (community, user_id, finished_at, hand_id, net, vpip, showdown,
    won_showdown, high_halves, low_halves, scoops, won);
CREATE INDEX hand_players_period ON hand_players (community, finished_at, user_id, net)
"""
"""``hand_players_player`` covers a player's stats, their net over time (in order) and ``top net``
over all time (grouped by player in index order); ``hand_players_period`` covers ``top net``
over a day or a week (a range of time)."""

BACKFILL_PAGE = 500
"""Hands the migration reads and replays at a time."""

INSERT_9 = ("INSERT INTO hand_players (hand_id, community, user_id, name, dealt, vpip, showdown, won_showdown, "
            "high_halves, low_halves, scoops, net, won, finished_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
"""The rows as the schema of version 9 has them (its backfill: hands of Stud Hi-Lo only, before the games)."""
INSERT = ("INSERT INTO hand_players (hand_id, community, user_id, name, dealt, vpip, showdown, won_showdown, "
          "high_halves, low_halves, scoops, net, won, finished_at, game) "
          "VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

GAME_MIGRATION = """
ALTER TABLE hand_players ADD COLUMN game TEXT NOT NULL DEFAULT 'stud8';
UPDATE hand_players SET game = 'stud' WHERE hand_id IN (SELECT id FROM hands WHERE setup LIKE '%"game": "stud"%');
UPDATE hand_players SET game = 'razz' WHERE hand_id IN (SELECT id FROM hands WHERE setup LIKE '%"game": "razz"%');
CREATE INDEX hand_players_game ON hand_players (community, game, user_id, finished_at, hand_id, net, vpip, showdown,
    won_showdown, high_halves, low_halves, scoops, won)
"""
"""The stats of one game (``stats razz``): each row names its hand's game, backfilled from the hand's setup
(:class:`~bot.core.model.HandSetup` writes ``"game": ...`` only when it is not stud8; a JSON string holding a
quote escapes it, so no player's name can match). ``hand_players_game`` covers a player's rows of one game; the
game comes before the player, so that no planner takes it for the queries of every game (PostgreSQL did, when it
began with the player as ``hand_players_player`` does; and the game as the last column of that one made it wide
enough for PostgreSQL to scan the table for ``top net all`` instead)."""


@dataclass(frozen=True, slots=True)
class HandLine:
    """One player's part of one finished hand (see the module's definitions)."""

    seat: int
    vpip: bool
    showdown: bool
    won_showdown: bool
    high_halves: int
    low_halves: int
    scoops: int
    net: int
    won: int


def hand_lines(hand: Hand) -> list[HandLine]:
    """Every seat's line of a finished hand, in seat order."""
    return [HandLine(seat, *figures) for seat, figures in enumerate(_figures(hand))]


def _figures(hand: Hand) -> list[tuple[bool, bool, bool, int, int, int, int, int]]:
    """Each seat's line but its seat, in :class:`HandLine`'s order (rows are made of them directly)."""
    n = hand.seat_count
    vpip = {e.seat for e in hand.events
            if isinstance(e, ActionTaken) and e.street == 3 and e.action in VOLUNTARY and e.amount > 0}
    at_showdown = len(hand.live_seats) > 1
    won, high, low, scoops = [0] * n, [0] * n, [0] * n, [0] * n
    won_showdown: set[int] = set()
    for award in hand.pot_results:
        for seat, chips in award.shares.items():
            won[seat] += chips
        if not at_showdown or len(award.eligible) < 2:
            continue
        for seat in award.high:
            high[seat] += 1
        for seat in award.low:
            low[seat] += 1
        if len(award.high) == 1 and award.low in ((), award.high):
            scoops[award.high[0]] += 1
        elif not award.high and len(award.low) == 1:  # Razz (G7): the low takes the pot whole
            scoops[award.low[0]] += 1
        won_showdown |= {seat for seat, chips in award.shares.items() if chips > 0}
    folded, stacks, starts = hand.folded, hand.stacks, hand.starting_stacks
    return [(s in vpip, at_showdown and not folded[s], s in won_showdown, high[s], low[s], scoops[s],
             stacks[s] - starts[s], won[s]) for s in range(n)]


def rows_of(hand: Hand, *, hand_id: int, community: str, players: Sequence[tuple[str, str]],
            finished_at: float) -> list[tuple[Any, ...]]:
    """The ``hand_players`` rows of a finished hand (:data:`INSERT`'s columns, its game last);
    ``players``: (user, name) by engine seat."""
    return [(hand_id, community, *players[seat], int(vpip), int(showdown), int(won_showdown), high, low, scoops,
             net, won, finished_at, hand.game.value)
            for seat, (vpip, showdown, won_showdown, high, low, scoops, net, won) in enumerate(_figures(hand))]


class Writer(Protocol):
    """What a transaction offers to write a feature's own rows (:class:`bot.store.Tx`)."""

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


async def record_hand(tx: Writer, *, hand: Hand, hand_id: int, community: str,
                      players: Sequence[Player], now: float) -> None:
    """Write the rows of a hand being settled, in the settlement's transaction;
    ``players``: the hand's setup players, by engine seat."""
    await tx.executemany(INSERT, rows_of(hand, hand_id=hand_id, community=community,
                                         players=[(p.user, p.name) for p in players], finished_at=now))


CASH_ONLY_MIGRATION = """
DELETE FROM hand_players WHERE hand_id IN (SELECT h.id FROM hands h JOIN tournaments t ON t.table_id = h.table_id)
"""
"""The schema version after which the rows are of cash-table hands only: a sit-and-go's hands are played
in tournament chips, which are not money (its players' results are its places and prizes)."""


async def migrate(tx: Tx) -> None:
    """The schema version that adds ``hand_players``: the table, its indexes, and the rows of
    every hand settled before it, replayed from its stored hand file through the engine
    (the users come from the hand's setup, in the same seat order). A hand whose file the
    engine cannot replay is logged and left out, rather than blocking the upgrade."""
    await tx.script(SCHEMA)
    query = ("SELECT h.id, h.setup, h.hand_file, COALESCE(h.finished_at, h.started_at), t.community "
             "FROM hands h JOIN tables t ON t.id = h.table_id "
             "WHERE h.status = 'done' AND h.hand_file IS NOT NULL AND h.id > ? ORDER BY h.id LIMIT ?")
    last = 0
    while True:  # a page of hands at a time: hand files are kilobytes each, a database may hold many
        page = await tx.all(query, (last, BACKFILL_PAGE))
        if not page:
            return
        rows: list[tuple[Any, ...]] = []
        for hand_id, setup, hand_file, finished_at, community in page:
            try:
                players = [(str(p[1]), str(p[2])) for p in json.loads(setup)["players"]]
                hand = replay_hand(HandFile.from_json(hand_file))
                if len(players) != hand.seat_count or not hand.is_over:
                    raise ValueError(f"{hand.seat_count} seats in the hand file, {len(players)} in the setup")
            except (EngineError, ValueError, KeyError, TypeError, IndexError) as exc:
                log.error("stats: hand %s cannot be replayed (%s); it has no stats rows", hand_id, exc)
                continue
            rows += [row[:-1] for row in rows_of(hand, hand_id=hand_id, community=community, players=players,
                                                 finished_at=finished_at)]
        await tx.executemany(INSERT_9, rows)
        last = page[-1][0]
