"""The structure of a sit-and-go: its levels, its pace, its payouts and how places are given.

Pure functions and values (no I/O): the property tests drive them directly.

The levels follow the stud tournaments of the big online rooms: the ante is about a fifth of
the small bet and the bring-in about a third of it (5/10 with bets of 25/50, 8/12 with 40/80,
10/15 with 50/100, ...). A starting stack of 1500 is 75 big bets of the first level. Past the
last row every amount doubles each level, so a tournament always ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.limits import PAYOUTS
from bot.core.model import MIX
from engine import Stakes
from engine.games import MIX_ORDER, Game

LEVELS: tuple[tuple[int, int, int, int], ...] = (
    # ante, bring-in, small bet, big bet
    (2, 3, 10, 20),
    (3, 5, 15, 30),
    (4, 8, 20, 40),
    (5, 10, 25, 50),
    (8, 12, 40, 80),
    (10, 15, 50, 100),
    (15, 25, 75, 150),
    (20, 30, 100, 200),
    (30, 50, 150, 300),
    (40, 60, 200, 400),
    (50, 75, 250, 500),
    (60, 100, 300, 600),
    (80, 125, 400, 800),
    (100, 150, 500, 1000),
    (150, 250, 750, 1500),
    (200, 300, 1000, 2000),
    (300, 500, 1500, 3000),
    (400, 600, 2000, 4000),
)
"""The schedule, level 1 first."""

DEFAULT_STACK = 1500


def level_stakes(level: int) -> Stakes:
    """The stakes of ``level`` (1-based); past the table every amount doubles each level.

    >>> level_stakes(4)
    Stakes(ante=5, bring_in=10, small_bet=25, big_bet=50)
    >>> level_stakes(len(LEVELS) + 1).big_bet
    8000
    """
    if level < 1:
        raise ValueError(f"levels start at 1, not {level}")
    row = LEVELS[min(level, len(LEVELS)) - 1]
    factor = 2 ** max(0, level - len(LEVELS))
    ante, bring_in, small, big = (v * factor for v in row)
    return Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big)


def level_of(stakes: Stakes) -> int | None:
    """The level whose stakes these are (None: no level's), for a hand history's ``Level`` field.

    >>> level_of(level_stakes(4)), level_of(level_stakes(len(LEVELS) + 3))
    (4, 21)
    >>> level_of(Stakes(ante=1, bring_in=2, small_bet=7, big_bet=14)) is None
    True
    """
    level = 1
    while (found := level_stakes(level)).big_bet < stakes.big_bet:
        level += 1
    return level if found == stakes else None


def level_game(game: str, level: int) -> Game:
    """The game of ``level`` (1-based) in a sit-and-go of ``game``: the game itself, or with ``mix`` (G8)
    Razz, Stud, Stud Hi-Lo level by level, in H.O.R.S.E.'s order, round again after the third.

    >>> [level_game("mix", n).value for n in range(1, 6)]
    ['razz', 'stud', 'stud8', 'razz', 'stud']
    >>> level_game("razz", 7).value
    'razz'
    """
    if level < 1:
        raise ValueError(f"levels start at 1, not {level}")
    if game == MIX:
        return MIX_ORDER[(level - 1) % len(MIX_ORDER)]
    return Game.from_str(game)


@dataclass(frozen=True, slots=True)
class Clocking:
    """When levels change: every ``length`` hands, or every ``length`` minutes of play."""

    unit: str
    """'hands' or 'minutes'."""
    length: int

    def level_at(self, *, hands_played: int, seconds: float) -> int:
        """The level (1-based) of the next hand, after ``hands_played`` hands and ``seconds`` of play.

        >>> Clocking("hands", 5).level_at(hands_played=10, seconds=0)
        3
        >>> Clocking("minutes", 5).level_at(hands_played=0, seconds=299.0)
        1
        """
        done = hands_played if self.unit == "hands" else int(max(0.0, seconds) // (self.length * 60))
        return 1 + done // self.length if self.unit == "hands" else 1 + done


def places_paid(payout: str, players: int) -> tuple[int, ...]:
    """The percentages paid: the chosen payout, but never paying as many places as there are
    players (the last place always loses its buy-in), at least the winner.

    >>> places_paid("50/30/20", 6), places_paid("50/30/20", 3), places_paid("65/35", 2)
    ((50, 30, 20), (65, 35), (100,))
    """
    paid = max(1, min(len(PAYOUTS[payout]), players - 1))
    return next(p for p in PAYOUTS.values() if len(p) == paid) if paid != len(PAYOUTS[payout]) \
        else PAYOUTS[payout]


def prizes(pool: int, percentages: Sequence[int]) -> list[int]:
    """The prize of each place paid: each its share of the pool rounded down, the odd chips to
    the winner. They add up to the pool.

    >>> prizes(400, (65, 35)), prizes(101, (50, 30, 20))
    ([260, 140], [51, 30, 20])
    """
    out = [pool * p // 100 for p in percentages]
    out[0] += pool - sum(out)
    return out


@dataclass(frozen=True, slots=True)
class Placing:
    user: str
    place: int
    """The best place of those shared (3 for players sharing 3rd and 4th)."""
    shared: int
    """How many share the place (1: alone)."""
    prize: int


def place_out(*, out: Sequence[tuple[str, int]], left: int, table: Sequence[int]) -> list[Placing]:
    """Places and prizes of the players out in one hand: ``out`` lists (user, chips they started
    the hand with) in seat order, ``left`` is how many still have chips, ``table`` is the prize of
    each place (1st first). More chips at the start of the hand is the better place; equal ones
    share their places' prizes (split evenly, any odd chips to the earlier seats).

    >>> [(p.user, p.place, p.prize) for p in place_out(out=[("a", 50), ("b", 80)], left=1, table=[70, 30])]
    [('b', 2, 30), ('a', 3, 0)]
    >>> [(p.user, p.place, p.shared, p.prize) for p in place_out(out=[("a", 50), ("b", 50)], left=1, table=[70, 31])]
    [('a', 2, 2, 16), ('b', 2, 2, 15)]
    """
    placings: list[Placing] = []
    place = left + 1
    for chips in sorted({c for _, c in out}, reverse=True):
        group = [user for user, c in out if c == chips]
        share = sum(table[p - 1] for p in range(place, place + len(group)) if p <= len(table))
        each, odd = divmod(share, len(group))
        placings += [Placing(user=u, place=place, shared=len(group), prize=each + (i < odd))
                     for i, u in enumerate(group)]
        place += len(group)
    return placings
