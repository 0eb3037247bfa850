"""The end of a hand: who shows, the pots, and the split (rules 14, 15, 18, 19).

These functions settle a :class:`~engine.game.Hand` whose betting is over; they
are separate from the betting state machine only to keep each module focused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import HandShown, PotAwarded
from engine.order import high_odd_chip_key, low_odd_chip_key
from engine.pots import Pot, PotResult, award_uncontested, build_pots, split_pot

if TYPE_CHECKING:
    from engine.game import Hand


def showdown_order(hand: Hand) -> list[int]:
    """Rule 15: the last to bet or raise on the last round, else its first actor, then clockwise."""
    n = hand.seat_count
    live = hand.live_seats
    start = hand.last_aggressor
    if start is None:
        start = hand.last_round_first
    if start is None:
        start = hand.bring_in_seat if hand.bring_in_seat is not None else 0
    return [s for s in ((start + i) % n for i in range(n)) if s in live]


def settle_showdown(hand: Hand) -> None:
    """Show every remaining hand, layer the pots and divide each one on its own."""
    order = showdown_order(hand)
    hand.show_order = order
    high: dict[int, int] = {}
    low: dict[int, int | None] = {}
    for seat in order:
        high[seat] = hv = hand.high_value(seat)
        low[seat] = lv = hand.low_value(seat)
        hand.events.append(
            HandShown(seat=seat, cards=tuple(hand.cards[seat]), community=hand.community, high_value=hv, low_value=lv)
        )
    # Rule 19: odd chips by the players' own cards only, never the community card.
    high_order = sorted(order, key=lambda s: high_odd_chip_key(hand.cards[s]), reverse=True)
    low_order = sorted(order, key=lambda s: low_odd_chip_key(hand.cards[s]))
    pots = _pots(hand)
    results = [
        split_pot(pot=pot, high=high, low=low, high_order=high_order, low_order=low_order) for pot in pots
    ]
    _pay(hand, results)


def settle_uncontested(hand: Hand, *, winner: int) -> None:
    """Rule 14: everybody else folded; the winner takes every pot, shows nothing."""
    _pay(hand, [award_uncontested(pot=pot, winner=winner) for pot in _pots(hand)])


def _pots(hand: Hand) -> list[Pot]:
    """Rule 11: pots cut only at the totals of players who are all-in."""
    seats = range(hand.seat_count)
    return build_pots(
        contributions=hand.contributed,
        live=[not hand.folded[s] for s in seats],
        all_in=[hand.is_all_in(s) for s in seats],
    )


def _pay(hand: Hand, results: list[PotResult]) -> None:
    hand.pot_results = results
    for index, result in enumerate(results):
        for seat, chips in result.shares.items():
            hand.stacks[seat] += chips
        hand.events.append(
            PotAwarded(
                index=index, amount=result.amount, eligible=result.eligible,
                high=result.high, low=result.low, shares=result.shares,
            )
        )
