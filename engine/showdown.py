"""The end of a hand: who shows, the pots, and the split (rules 14, 15, 18, 19).

These functions read a hand whose betting is over (a :class:`ShowdownView`:
:class:`~engine.game.Hand` is one) and return its :class:`Settlement`, which the
hand applies; they change nothing themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.cards import Card
from engine.events import Event, HandShown, PotAwarded
from engine.games import Scoring
from engine.order import high_odd_chip_key, low_odd_chip_key
from engine.pots import Pot, PotResult, award_uncontested, build_pots, split_pot


class ShowdownView(Protocol):
    """What the settlement reads of a hand whose betting is over."""

    @property
    def seat_count(self) -> int: ...

    @property
    def live_seats(self) -> list[int]:
        """Seats still in the hand (not folded), all-in ones included."""

    @property
    def last_aggressor(self) -> int | None:
        """Who made the last bet, complete or raise of the last betting round (rule 15)."""

    @property
    def last_round_first(self) -> int | None:
        """The first to act on the last betting round."""

    @property
    def bring_in_seat(self) -> int | None: ...

    @property
    def cards(self) -> Sequence[Sequence[Card]]:
        """Each seat's own cards, in the order dealt."""

    @property
    def community(self) -> Card | None: ...

    @property
    def contributed(self) -> Sequence[int]:
        """Each seat's chips in the pots."""

    @property
    def folded(self) -> Sequence[bool]: ...

    def is_all_in(self, seat: int) -> bool: ...

    @property
    def scoring(self) -> Scoring:
        """What the pots are divided by (rules 17-19, G6, G7)."""

    def high_value(self, seat: int) -> int:
        """The seat's best high hand value (own cards plus the community card)."""

    def low_value(self, seat: int) -> int | None:
        """The seat's best low hand value, None if it has no qualifying low."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settlement:
    """What the end of a hand changes: the hands shown, the pots paid, the chips each seat takes."""

    show_order: tuple[int, ...]
    """The order the hands are shown in (rule 15); empty when nobody shows."""
    shown: tuple[HandShown, ...]
    """One event per hand shown, in :attr:`show_order`."""
    results: tuple[PotResult, ...]
    """How each pot is divided, the main pot first."""
    awarded: tuple[PotAwarded, ...]
    """One event per pot, in the order of :attr:`results`."""
    won: tuple[int, ...]
    """The chips each seat takes from the pots, by seat."""

    @property
    def events(self) -> tuple[Event, ...]:
        """The events of the settlement, in order: the hands shown, then the pots awarded."""
        return (*self.shown, *self.awarded)


def showdown_order(hand: ShowdownView) -> list[int]:
    """Rule 15: the last to bet or raise on the last round, else its first actor, then clockwise."""
    n = hand.seat_count
    live = hand.live_seats
    start = hand.last_aggressor
    if start is None:
        start = hand.last_round_first
    if start is None:
        start = hand.bring_in_seat if hand.bring_in_seat is not None else 0
    return [s for s in ((start + i) % n for i in range(n)) if s in live]


def settle_showdown(hand: ShowdownView) -> Settlement:
    """Show every remaining hand, layer the pots and divide each one on its own."""
    order = showdown_order(hand)
    high: dict[int, int] = {}
    low: dict[int, int | None] = {}
    shown: list[HandShown] = []
    cards, community = hand.cards, hand.community
    for seat in order:
        high[seat] = hv = hand.high_value(seat)
        low[seat] = lv = hand.low_value(seat)
        shown.append(HandShown(seat, tuple(cards[seat]), community, hv, low_value=lv))
    # Rule 19: odd chips by the players' own cards only, never the community card; each order
    # only where the scoring divides by it (split_pot reads no other).
    scoring = hand.scoring
    high_order = [] if scoring is Scoring.LOW else sorted(
        order, key=lambda s: high_odd_chip_key(cards[s]), reverse=True)
    low_order = [] if scoring is Scoring.HIGH else sorted(order, key=lambda s: low_odd_chip_key(cards[s]))
    results = [
        split_pot(pot=pot, high=high, low=low, high_order=high_order, low_order=low_order, scoring=scoring)
        for pot in _pots(hand)
    ]
    return _settlement(hand, order=order, shown=shown, results=results)


def settle_uncontested(hand: ShowdownView, *, winner: int) -> Settlement:
    """Rule 14: everybody else folded; the winner takes every pot, shows nothing."""
    results = [award_uncontested(pot=pot, winner=winner, scoring=hand.scoring) for pot in _pots(hand)]
    return _settlement(hand, order=[], shown=[], results=results)


def _pots(hand: ShowdownView) -> list[Pot]:
    """Rule 11: pots cut only at the totals of players who are all-in."""
    seats = range(hand.seat_count)
    return build_pots(
        contributions=hand.contributed,
        live=[not hand.folded[s] for s in seats],
        all_in=[hand.is_all_in(s) for s in seats],
    )


def _settlement(hand: ShowdownView, *, order: list[int], shown: list[HandShown],
                results: list[PotResult]) -> Settlement:
    won = [0] * hand.seat_count
    for result in results:
        for seat, chips in result.shares.items():
            won[seat] += chips
    awarded = tuple(
        PotAwarded(
            index=index, amount=result.amount, eligible=result.eligible,
            high=result.high, low=result.low, shares=result.shares,
        )
        for index, result in enumerate(results)
    )
    return Settlement(show_order=tuple(order), shown=tuple(shown), results=tuple(results), awarded=awarded,
                      won=tuple(won))
