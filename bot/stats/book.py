"""The stats queries: a player's totals, their net over their hands, and net winnings over a period
(of cash-table hands: :mod:`bot.stats.rows`), and a player's sit-and-go results.

Each query reads ``hand_players`` (:mod:`bot.stats.rows`) through a covering index: a
player's rows, and every row of a community for ``top net all``, through
``hand_players_player`` (community, user, time, ...); a day's or a week's rows through
``hand_players_period`` (community, time, ...), named with ``INDEXED BY`` so that the plan
cannot turn into a scan of the community's every hand (``python -m bench.stats`` prints the plans).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from bot.core.limits import PERIODS
from bot.store import Store
from engine.games import Game

STATS_SQL: Final = (
    "SELECT COUNT(*), COALESCE(SUM(vpip), 0), COALESCE(SUM(showdown), 0), COALESCE(SUM(won_showdown), 0), "
    "COALESCE(SUM(high_halves), 0), COALESCE(SUM(low_halves), 0), COALESCE(SUM(scoops), 0), "
    "COALESCE(SUM(net), 0), COALESCE(MAX(won), 0) FROM hand_players WHERE community = ? AND user_id = ?")
SERIES_SQL: Final = ("SELECT net FROM hand_players WHERE community = ? AND user_id = ? "
                     "ORDER BY finished_at, hand_id")
STATS_GAME_SQL: Final = STATS_SQL.replace("WHERE community = ? AND user_id = ?",
                                          "INDEXED BY hand_players_game "
                                          "WHERE community = ? AND user_id = ? AND game = ?")
"""``stats razz``: the totals of one game's hands (``hand_players_game`` covers them)."""
SERIES_GAME_SQL: Final = ("SELECT net FROM hand_players INDEXED BY hand_players_game WHERE community = ? "
                          "AND user_id = ? AND game = ? ORDER BY finished_at, hand_id")
GAMES_SQL: Final = ("SELECT game, COUNT(*), COALESCE(SUM(net), 0) FROM hand_players INDEXED BY hand_players_game "
                    "WHERE community = ? AND game IN ({games}) AND user_id = ? GROUP BY game ORDER BY game").format(
    games=", ".join(f"'{g.value}'" for g in Game))
"""A player's hands and net in each game they played: one search of ``hand_players_game`` per game."""

_TOP_NET: Final = (
    "SELECT p.user_id AS user_id, p.total AS total, w.name AS name FROM "
    "(SELECT user_id, SUM(net) AS total FROM hand_players {index} WHERE community = ? AND finished_at >= ? "
    "GROUP BY user_id) p JOIN wallets w ON w.community = ? AND w.user_id = p.user_id "
    "ORDER BY total DESC, name LIMIT ?")
"""Players only: a house bot has no wallet (bot/chips/ledger.py), so its winnings are never ranked."""
TOP_NET_SQL: Final = {period: _TOP_NET.format(index="INDEXED BY hand_players_period" if span else "")
                      for period, span in PERIODS.items()}
"""``top net`` over each period."""
_TOURNEY_SQL: Final = (
    "SELECT p.place, COUNT(*), COALESCE(SUM(p.prize), 0), SUM(t.buyin) FROM tourney_players p "
    "JOIN tournaments t ON t.id = p.tournament_id WHERE t.community = ? AND p.user_id = ? "
    "AND t.status = 'finished' {game}GROUP BY p.place ORDER BY p.place")
"""A player's finished sit-and-gos, by place (cancelled ones were refunded; running ones are not over)."""
TOURNEY_SQL: Final = _TOURNEY_SQL.format(game="")
TOURNEY_GAME_SQL: Final = _TOURNEY_SQL.format(game="AND t.game = ? ")
"""The sit-and-gos of one game (a mix's are 'mix')."""
FIND_SQL: Final = ("SELECT user_id, name FROM wallets WHERE community = ? AND lower(name) = lower(?) "
            "ORDER BY user_id")
NAMES_SQL: Final = "SELECT user_id, name FROM wallets WHERE community = ? ORDER BY user_id"
"""Every player's name, for a name FIND_SQL misses: SQLite's lower() folds ASCII letters only ('ёжик', 'ZOË')."""


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's totals at one community (see :mod:`bot.stats.rows` for each definition)."""

    hands: int
    vpip: int
    showdowns: int
    won_showdowns: int
    high_halves: int
    low_halves: int
    scoops: int
    net: int
    biggest_pot: int


@dataclass(frozen=True, slots=True)
class TourneyStats:
    """A player's finished sit-and-gos at one community: their results in wallet chips."""

    played: int
    places: tuple[tuple[int, int], ...]
    """(place, how many times), best place first (a shared place counts as its best)."""
    prizes: int
    buyins: int


@dataclass(frozen=True, slots=True)
class Player:
    user: str
    name: str


class StatsBook:
    """Stats queries over a :class:`~bot.store.Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def player(self, community: str, user: str, *, game: str | None = None) -> PlayerStats:
        """The player's totals over every game, or over the hands of ``game`` (``'razz'``)."""
        rows = await self.store.fetch(STATS_SQL, (community, user)) if game is None \
            else await self.store.fetch(STATS_GAME_SQL, (community, user, game))
        return PlayerStats(*(int(v) for v in rows[0]))

    async def games(self, community: str, user: str) -> list[tuple[str, int, int]]:
        """(game, hands, net) of each game the player was dealt, by the game's name."""
        return [(str(r[0]), int(r[1]), int(r[2])) for r in await self.store.fetch(GAMES_SQL, (community, user))]

    async def tourneys(self, community: str, user: str, *, game: str | None = None) -> TourneyStats:
        found = await self.store.fetch(TOURNEY_SQL, (community, user)) if game is None \
            else await self.store.fetch(TOURNEY_GAME_SQL, (community, user, game))
        rows = [tuple(int(v) for v in r) for r in found]
        return TourneyStats(played=sum(r[1] for r in rows), places=tuple((r[0], r[1]) for r in rows),
                            prizes=sum(r[2] for r in rows), buyins=sum(r[3] for r in rows))

    async def net_series(self, community: str, user: str, *, game: str | None = None) -> list[int]:
        """The player's net of each hand (of ``game``'s hands only, if named), in the order the hands ended."""
        rows = await self.store.fetch(SERIES_SQL, (community, user)) if game is None \
            else await self.store.fetch(SERIES_GAME_SQL, (community, user, game))
        return [int(r[0]) for r in rows]

    async def find(self, community: str, name: str) -> Player | None:
        """The player of this community with this name (any case), by their wallet's name."""
        rows = await self.store.fetch(FIND_SQL, (community, name.strip()))
        if not rows:  # in any case beyond ASCII, as PostgreSQL's lower() already does
            folded = name.strip().casefold()
            rows = [r for r in await self.store.fetch(NAMES_SQL, (community,)) if str(r["name"]).casefold() == folded]
        return Player(user=rows[0]["user_id"], name=rows[0]["name"]) if rows else None

    async def top_net(self, community: str, *, period: str, now: float, limit: int = 10) -> list[tuple[str, int]]:
        """(name, net winnings) of the best players over ``period`` (a key of :data:`PERIODS`), best first."""
        rows = await self.store.fetch(TOP_NET_SQL[period],
                                      top_net_params(community, period=period, now=now, limit=limit))
        return [(r["name"], int(r["total"])) for r in rows]


def top_net_params(community: str, *, period: str, now: float, limit: int) -> tuple[Any, ...]:
    span = PERIODS[period]
    return (community, float("-inf") if span is None else now - span, community, limit)
