"""Stakes (rule 2), the table options of rules 6 and 12, and the players a hand may start with.

>>> Stakes()
Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)
>>> Stakes(ante=1, bring_in=5, small_bet=5, big_bet=10)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.errors.StakesError: stakes ante=1 bring_in=5 small_bet=5 big_bet=10 break rule 2: need ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import SetupError, StakesError


@dataclass(frozen=True, slots=True)
class Stakes:
    """The four amounts of a fixed-limit table (rule 2), in whole chips."""

    ante: int = 1
    bring_in: int = 2
    small_bet: int = 5
    big_bet: int = 10

    def __post_init__(self) -> None:
        values = (self.ante, self.bring_in, self.small_bet, self.big_bet)
        if any(type(v) is not int for v in values):
            raise StakesError(
                f"stakes must be whole numbers of chips, got ante={self.ante!r} "
                f"bring_in={self.bring_in!r} small_bet={self.small_bet!r} big_bet={self.big_bet!r}"
            )
        if not (0 <= self.ante <= self.bring_in < self.small_bet < self.big_bet and self.bring_in >= 1):
            raise StakesError(
                f"stakes ante={self.ante} bring_in={self.bring_in} small_bet={self.small_bet} "
                f"big_bet={self.big_bet} break rule 2: need 0 <= ante <= bring_in < small_bet "
                "< big_bet and bring_in >= 1"
            )

    @classmethod
    def from_dict(cls, data: Any) -> Stakes:
        """Build from ``{"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}``."""
        if not isinstance(data, dict):
            raise StakesError(f"stakes must be an object, got {data!r}")
        unknown = sorted(set(data) - {"ante", "bring_in", "small_bet", "big_bet"})
        if unknown:
            raise StakesError(f"unknown stakes field(s) {unknown}")
        missing = sorted({"ante", "bring_in", "small_bet", "big_bet"} - set(data))
        if missing:
            raise StakesError(f"stakes lack {missing}")
        return cls(
            ante=data["ante"], bring_in=data["bring_in"],
            small_bet=data["small_bet"], big_bet=data["big_bet"],
        )

    def to_dict(self) -> dict[str, int]:
        return {"ante": self.ante, "bring_in": self.bring_in, "small_bet": self.small_bet, "big_bet": self.big_bet}

    def limit(self, street: int) -> int:
        """The fixed bet of a street: small on third and fourth, big from fifth on."""
        return self.small_bet if street <= 4 else self.big_bet


class ShortAllIn(StrEnum):
    """How an all-in for less than a full bet is judged (rule 12)."""

    HALF = "half"
    """RRoP: half a bet or more counts as a full bet or raise."""
    FULL = "full"
    """Only a full bet or raise counts (PokerKit plays this way)."""


@dataclass(frozen=True, slots=True)
class Options:
    """Table options: ``heads_up_cap`` (rule 6), ``short_all_in`` (rule 12) and
    ``open_pair_double`` (GAMES.md G5: Stud's fourth-street double bet; no other game reads it)."""

    heads_up_cap: bool = False
    short_all_in: ShortAllIn = ShortAllIn.HALF
    open_pair_double: bool = True

    def __post_init__(self) -> None:
        if type(self.heads_up_cap) is not bool:
            raise StakesError(f"option heads_up_cap must be true or false, got {self.heads_up_cap!r}")
        if not isinstance(self.short_all_in, ShortAllIn):
            raise StakesError(f"option short_all_in must be 'half' or 'full', got {self.short_all_in!r}")
        if type(self.open_pair_double) is not bool:
            raise StakesError(f"option open_pair_double must be true or false, got {self.open_pair_double!r}")

    @classmethod
    def from_dict(cls, data: Any) -> Options:
        """Build from ``{"heads_up_cap": false, "short_all_in": "half", "open_pair_double": true}``
        (each optional)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise StakesError(f"options must be an object, got {data!r}")
        unknown = sorted(set(data) - {"heads_up_cap", "short_all_in", "open_pair_double"})
        if unknown:
            raise StakesError(f"unknown option(s) {unknown}")
        short = data.get("short_all_in", "half")
        try:
            short_all_in = ShortAllIn(short)
        except ValueError:
            raise StakesError(f"option short_all_in must be 'half' or 'full', got {short!r}") from None
        return cls(heads_up_cap=data.get("heads_up_cap", False), short_all_in=short_all_in,
                   open_pair_double=data.get("open_pair_double", True))

    def to_dict(self) -> dict[str, object]:
        """The options as JSON data; ``open_pair_double`` only when it is off (a stud8 file is as before)."""
        data: dict[str, object] = {"heads_up_cap": self.heads_up_cap, "short_all_in": self.short_all_in.value}
        if not self.open_pair_double:
            data["open_pair_double"] = False
        return data


def check_players(names: Sequence[str], stacks: Sequence[int], *, most: int) -> None:
    """Raise :class:`SetupError` unless there are 2 to ``most`` players, each with a distinct
    non-empty name and a whole number of chips above 0.

    >>> check_players(["ann", "ann"], [5, 5], most=8)
    Traceback (most recent call last):
    ...
    engine.errors.SetupError: player name 'ann' appears twice
    """
    if not 2 <= len(names) <= most:
        raise SetupError(f"a hand needs 2 to {most} players, got {len(names)}")
    if len(stacks) != len(names):
        raise SetupError(f"{len(names)} names but {len(stacks)} stacks")
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise SetupError(f"player name {name!r} must be a non-empty string")
        if name in seen:
            raise SetupError(f"player name {name!r} appears twice")
        seen.add(name)
    for name, stack in zip(names, stacks):
        if type(stack) is not int or stack <= 0:
            raise SetupError(f"{name}'s stack {stack!r} must be a whole number of chips above 0")
