"""The application's state: tables, seats, and the hand in progress (as data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bot.core.limits import DEFAULT_REFILL_HANDS, DEFAULT_REFILL_SECONDS, MAX_SEATS
from bot.core.names import plain
from engine import Stakes
from engine.games import Game, mix_game

MIX = "mix"
"""G8: the table game that deals Razz, Stud and Stud Hi-Lo in turn."""
TABLE_GAMES = (*(g.value for g in Game), MIX)
"""What ``config game=`` takes: stud8, stud, razz, mix."""
DEFAULT_MIX_HANDS = 8
"""G8: the WSOP's H.O.R.S.E. count."""
MIX_HANDS_RANGE = (1, 50)


@dataclass
class Seat:
    seat_no: int
    user: str
    name: str
    stack: int
    """Chips at the table outside the hand in progress (the hand's start stack while one runs)."""
    is_bot: bool = False
    sitting_out: bool = False
    leaving: bool = False
    """Cash out when the hand in progress ends (checked or folded meanwhile)."""
    kicked: bool = False
    """Kicked during the hand in progress: plays it out as usual (turn, timer, choices), then is
    removed and cashed out by its settlement."""
    timeouts: int = 0
    unreachable: bool = False
    """Private messages fail: cards only on request ('cards')."""


@dataclass
class Table:
    id: int
    platform: str
    community: str
    channel: str
    creator: str
    stakes: Stakes
    timer: int
    running: bool = False
    hand_no: int = 0
    board_ref: str | None = None
    next_hand_at: float | None = None
    view: str = "image"
    """How the board is shown: "image" (a picture, the text as caption or summary) or "text"."""
    lang: str = "en"
    """The language of the public board and lines (``config lang=``)."""
    seats: dict[int, Seat] = field(default_factory=dict)
    tournament: int | None = None
    """The sit-and-go played at this table (bot/tourney), if any: its players cannot leave, and
    those sitting out are dealt in (and fold at once when facing a bet), so that it always ends."""
    closing: bool = False
    """Stopped during a hand: the hand plays out, then its settlement closes the table."""
    game: str = "stud8"
    """What the table deals (``config game=``): one of :data:`TABLE_GAMES`, a game or ``"mix"`` (G8)."""
    mix_hands: int = DEFAULT_MIX_HANDS
    """G8: hands of each game before the mix moves on (``config mix_hands=``, 1-50)."""
    mix_start: int = 0
    """The hand number the mix began after: hand ``mix_start + 1`` is the mix's first (Razz)."""

    def game_of_hand(self, hand_no: int) -> Game:
        """The game hand ``hand_no`` is dealt in (G8 for a mix table).

        >>> t = Table(id=1, platform="console", community="c", channel="c", creator="ann", stakes=Stakes(), timer=30,
        ...           game="mix", mix_hands=2, mix_start=4)
        >>> [t.game_of_hand(n).value for n in (5, 6, 7, 9, 11)]
        ['razz', 'razz', 'stud', 'stud8', 'razz']
        """
        if self.game == MIX:
            return mix_game(index=max(0, hand_no - 1 - self.mix_start), per_game=self.mix_hands)
        return Game.from_str(self.game)

    def seat_of(self, user: str) -> Seat | None:
        return next((s for s in self.seats.values() if s.user == user), None)

    def seat_named(self, name: str) -> Seat | None:
        lowered = plain(name).lstrip("@").lower()
        return next((s for s in self.seats.values() if plain(s.name).lower() == lowered or s.user == name), None)

    def free_seat(self) -> int | None:
        return next((n for n in range(MAX_SEATS) if n not in self.seats), None)

    def ready_seats(self) -> list[Seat]:
        """Seats that will be dealt into the next hand."""
        return [s for _, s in sorted(self.seats.items())
                if s.stack > 0 and (not s.sitting_out or self.tournament is not None)
                and not (s.leaving or s.kicked)]


@dataclass
class TableClocks:
    """A cash table's time bank and pause (bot/table/timebank.py): stored, and held with the table."""

    timebank: int
    """Each player's bank, in seconds (``config timebank=N``; 0: none)."""
    refill_seconds: int = DEFAULT_REFILL_SECONDS
    refill_hands: int = DEFAULT_REFILL_HANDS
    """Every ``refill_hands`` hands each bank gets ``refill_seconds`` back, up to :attr:`timebank`."""
    banks: dict[str, float] = field(default_factory=dict)
    """Seconds left in each player's bank, by user; a player not listed has a full bank."""
    paused_by: str | None = None
    """The name of who paused the table (``pause``), while it is paused."""
    paused_at: float | None = None
    """When the table was paused: every clock of the table stands still since then."""

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def bank(self, user: str) -> float:
        """Seconds left in ``user``'s bank."""
        return max(0.0, min(self.banks.get(user, float(self.timebank)), float(self.timebank)))


class UserLanguage(NamedTuple):
    """A user's language, and whether they chose it with 'lang' (it then wins over their platform's locale)."""

    lang: str
    chosen: bool


class Player(NamedTuple):
    """A player dealt into a hand, as its setup stores them (a JSON array ``[seat_no, user, name, stack]``)."""

    seat_no: int
    """The table seat, counted from 0."""
    user: str
    name: str
    stack: int
    """The chips they start the hand with."""


@dataclass
class HandSetup:
    """Everything fixed when a hand starts: with the actions, it determines the hand."""

    hand_no: int
    stakes: Stakes
    players: list[Player]
    """In seat order; the player's index here is their seat in the engine's hand."""
    deck: list[str]
    game: Game = Game.STUD8
    """The hand's game (G8: fixed before the deal); stored only when it is not stud8."""

    def to_json(self) -> dict[str, Any]:
        data = {"hand_no": self.hand_no, "stakes": self.stakes.to_dict(), "players": self.players, "deck": self.deck}
        if self.game is not Game.STUD8:
            data["game"] = self.game.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandSetup:
        return cls(
            hand_no=data["hand_no"], stakes=Stakes.from_dict(data["stakes"]),
            players=[Player(int(a), str(b), str(c), int(d)) for a, b, c, d in data["players"]], deck=list(data["deck"]),
            game=Game.from_str(data.get("game", "stud8")),
        )
