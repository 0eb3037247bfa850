"""What happened in a hand, in order: the engine's output for the bot to render and store.

Every state change appends one event to :attr:`engine.game.Hand.events`. Events
hold seats (0 = first seat to the dealer's left); the hand knows the names.
Down cards travel in :class:`CardDealt` events with ``face_up=False``: a renderer
must show them only to their owner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, TypeVar

from engine.cards import Card
from engine.errors import IllegalActionError
from engine.evaluate import HighHand, LowHand, best_high, best_low
from engine.lowball import RazzHand, best_razz, is_razz_value


class Action(StrEnum):
    """A player's decision (HAND_FORMAT.md names)."""

    BRING_IN = "bring-in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    BET_BIG = "bet-big"
    """G5: Stud's fourth street with a pair showing: open with the big bet."""
    RAISE_BIG = "raise-big"
    """G5: raise by the big bet while the fourth-street choice is open."""
    CALL = "call"
    CHECK = "check"
    FOLD = "fold"

    @classmethod
    def from_str(cls, text: str) -> Action:
        """Parse ``'call'``, ``'bring-in'`` ... (``'bring_in'`` and ``'bringin'`` too)."""
        if isinstance(text, str):
            known = _ACTION_OF.get(text)  # the usual case: a canonical name, as stored and parsed
            if known is not None:
                return known
        name = text.strip().lower().replace("_", "-") if isinstance(text, str) else text
        if name == "bringin":
            name = "bring-in"
        try:
            return cls(name)
        except ValueError:
            raise IllegalActionError(
                f"unknown action {text!r}: expected one of {', '.join(a.value for a in cls)}"
            ) from None


_ACTION_OF: dict[str, Action] = {a.value: a for a in Action}

AGGRESSIVE = frozenset({Action.COMPLETE, Action.BET, Action.RAISE, Action.BET_BIG, Action.RAISE_BIG})


_E = TypeVar("_E")


def _quick_init(cls: type[_E]) -> type[_E]:
    """Make a frozen slots dataclass's events quick to create: frozen for the type checker (mypy
    --strict refuses any assignment to a field), read-only by convention at run time.

    A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__(self, name, ...)``
    (its own ``__setattr__`` refuses), some four times the cost of a plain assignment; a hand makes
    about 110 events, so that was an eighth of the engine's time in ``python -m bench``. This puts
    back ``object``'s ``__setattr__`` and ``__delattr__`` and gives the class an ``__init__`` of plain
    assignments, with the same parameters. ``__eq__``, ``__hash__`` (by the fields, as frozen),
    ``__repr__`` and ``__match_args__`` stay the dataclass's.

    >>> event = CardDealt(seat=1, card=Card.from_str("Ah"), face_up=True, street=3)
    >>> event == CardDealt(1, Card.from_str("Ah"), True, 3), hash(event) == hash(CardDealt(1, event.card, True, 3))
    (True, True)
    >>> event
    CardDealt(seat=1, card=Card.from_str('Ah'), face_up=True, street=3)
    """
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    lines = [f"def __init__(self, {', '.join(names)}):", *(f"    self.{name} = {name}" for name in names)]
    namespace: dict[str, Any] = {}
    exec("\n".join(lines) + "\n", {}, namespace)  # as dataclasses itself builds __init__; no outside input
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 (mypy keeps the dataclass's signature, which is the same)
    delattr(cls, "__setattr__")  # the frozen dataclass's, which refuses every assignment
    delattr(cls, "__delattr__")
    return cls


@_quick_init
@dataclass(frozen=True, slots=True)
class AntePosted:
    seat: int
    amount: int
    all_in: bool


@_quick_init
@dataclass(frozen=True, slots=True)
class StreetBegan:
    """A street's cards are about to be dealt (3 to 7)."""

    street: int


@_quick_init
@dataclass(frozen=True, slots=True)
class CardDealt:
    seat: int
    card: Card
    face_up: bool
    street: int


@_quick_init
@dataclass(frozen=True, slots=True)
class CommunityCardDealt:
    """Rule 10: one card face up in the middle, everybody's seventh card."""

    card: Card


@_quick_init
@dataclass(frozen=True, slots=True)
class BettingBegan:
    """A betting round opens; ``first`` is the seat to act first."""

    street: int
    first: int


@_quick_init
@dataclass(frozen=True, slots=True)
class ActionTaken:
    street: int
    seat: int
    action: Action
    amount: int
    """Chips this action put in."""
    total: int
    """The player's chips in front of them this round after it."""
    all_in: bool
    legal: tuple[Action, ...]


@_quick_init
@dataclass(frozen=True, slots=True)
class UncalledReturned:
    """Rule 13: chips nobody called go back to their owner."""

    seat: int
    amount: int


@_quick_init
@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand shown at showdown (rule 15 order), with its values; names on demand."""

    seat: int
    cards: tuple[Card, ...]
    """The player's own cards, in dealt order."""
    community: Card | None
    high_value: int
    low_value: int | None

    @property
    def all_cards(self) -> tuple[Card, ...]:
        return self.cards if self.community is None else (*self.cards, self.community)

    @property
    def high(self) -> HighHand:
        """The best high hand with its five cards and name."""
        return best_high(self.all_cards)

    @property
    def low(self) -> LowHand | RazzHand | None:
        """The best low of the game: Razz's ace-to-five (when ``low_value`` is a razz value),
        else the best eight-or-better low, or None."""
        if is_razz_value(self.low_value):
            return best_razz(self.all_cards)
        if self.low_value is None:
            return None
        return best_low(self.all_cards)


@_quick_init
@dataclass(frozen=True, slots=True)
class PotAwarded:
    index: int
    """0 for the main pot, 1.. for side pots."""
    amount: int
    eligible: tuple[int, ...]
    high: tuple[int, ...]
    low: tuple[int, ...]
    shares: Mapping[int, int]


@_quick_init
@dataclass(frozen=True, slots=True)
class HandEnded:
    stacks: tuple[int, ...]


Event = (
    AntePosted | StreetBegan | CardDealt | CommunityCardDealt | BettingBegan | ActionTaken
    | UncalledReturned | HandShown | PotAwarded | HandEnded
)
