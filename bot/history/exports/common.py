"""What every export format needs: the hand's identity and names that readers accept.

Names: hand-history readers break on a ``:`` or a bracket in a name, on names that
are not unique, and on leading or trailing spaces (POKERSTARS_FORMAT.md, "What breaks
readers"). :func:`safe_names` maps every player of an export to one safe, unique name,
the same in every hand of that export.

>>> sorted(safe_names(["ann", " ann ", "b:o[b]", "", "ann_2"]).items())
[('', 'player'), (' ann ', 'ann_3'), ('ann', 'ann'), ('ann_2', 'ann_2'), ('b:o[b]', 'b_o_b')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine import Hand

_UNSAFE = re.compile(r"[:\[\]\s'\"#|\\]+")
_MAX_NAME = 40


class ExportError(ValueError):
    """A hand that cannot be exported as asked (not finished, naive time, unknown viewer)."""


def safe_name(name: str) -> str:
    """One name with nothing a reader chokes on: no ``:``, brackets, quotes or whitespace runs."""
    cleaned = _UNSAFE.sub("_", name.strip()).strip("_")[:_MAX_NAME]
    return cleaned or "player"


def safe_names(names: Iterable[str]) -> dict[str, str]:
    """A safe name for each distinct name, unique across all of them (first come keeps the plain one)."""
    ordered = list(dict.fromkeys(names))
    taken: set[str] = set()
    result: dict[str, str] = {}
    # Names that are already safe keep themselves, whatever their order.
    for name in ordered:
        if safe_name(name) == name and name not in taken:
            result[name] = name
            taken.add(name)
    for name in ordered:
        if name in result:
            continue
        base = safe_name(name)
        candidate, n = base, 2
        while candidate in taken:
            candidate = f"{base}_{n}"
            n += 1
        result[name] = candidate
        taken.add(candidate)
    return result


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournament:
    """The sit-and-go a hand was played in, as a tournament hand history names it.

    >>> Tournament(number=12, buyin=0, level=9)
    Tournament(number=12, buyin=0, level=9, table_no=1)
    """

    number: int
    """The tournament's number, unique among the tournaments of the export's database."""
    buyin: int
    """What entering cost in chips; 0 is a freeroll."""
    level: int
    """The level the hand was dealt at, from 1."""
    table_no: int = 1

    def __post_init__(self) -> None:
        if self.number < 0 or self.buyin < 0 or self.level < 1 or self.table_no < 1:
            raise ExportError(f"{self!r}: numbers must not be negative, the level and table count from 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandMeta:
    """Who, where and when, for one exported hand.

    ``played_at`` is an aware datetime (UTC in the bot); ``viewer`` the engine name of the
    player whose down cards the export shows (None: nobody's); ``names`` maps engine names to
    the names written (made safe by :func:`safe_names` if a name is missing or unsafe);
    ``seats`` the table's seat number of each player in seat order (empty: 1, 2, 3 ...).
    ``number`` is the hand's number among every hand of the database (trackers key a hand by
    site and number alone); ``table_id`` the table's own number (0: none); ``tournament`` the
    sit-and-go the hand was played in (None: a cash table).
    """

    number: int
    table: str
    played_at: datetime
    viewer: str | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    seats: tuple[int, ...] = ()
    table_id: int = 0
    tournament: Tournament | None = None

    def __post_init__(self) -> None:
        if any(b <= a for a, b in zip(self.seats, self.seats[1:])) or any(s < 1 for s in self.seats):
            raise ExportError(f"seat numbers {self.seats} must rise from 1 in seat order")
        if self.played_at.tzinfo is None or self.played_at.utcoffset() is None:
            raise ExportError("played_at must be an aware datetime (UTC)")
        if self.number < 0 or self.table_id < 0:
            raise ExportError(f"hand number {self.number} and table {self.table_id} must not be negative")


def written_names(hand: Hand, meta: HandMeta) -> list[str]:
    """The name written for each seat: the export's map, made safe and unique in this hand."""
    wanted = [meta.names.get(n, n) for n in hand.names]
    if all(safe_name(w) == w for w in wanted) and len(set(wanted)) == len(wanted):
        return wanted
    fixed = safe_names(wanted)
    out = [fixed[w] for w in wanted]
    if len(set(out)) != len(out):  # two engine names mapped to the same written name
        seen: set[str] = set()
        unique = []
        for w in out:
            candidate, n = w, 2
            while candidate in seen:
                candidate, n = f"{w}_{n}", n + 1
            seen.add(candidate)
            unique.append(candidate)
        out = unique
    return out


def seat_numbers(hand: Hand, meta: HandMeta) -> tuple[int, ...]:
    """The seat number written for each player."""
    if not meta.seats:
        return tuple(range(1, hand.seat_count + 1))
    if len(meta.seats) != hand.seat_count:
        raise ExportError(f"{len(meta.seats)} seat numbers for {hand.seat_count} players")
    return meta.seats


def viewer_seat(hand: Hand, meta: HandMeta) -> int | None:
    if meta.viewer is None:
        return None
    if meta.viewer not in hand.names:
        raise ExportError(f"viewer {meta.viewer!r} did not play this hand")
    return hand.names.index(meta.viewer)


def check_finished(hand: Hand) -> None:
    if not hand.is_over:
        raise ExportError("only a finished hand can be exported")
