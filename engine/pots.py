"""Pots (rules 11, 13) and the split of each pot (rules 18 and 19).

Pots are layered by contribution: every distinct total that a player put into
the hand (antes included, uncalled chips already returned) closes a layer; a
layer is won only by players still in the hand who reached it. Layers with no
chips are dropped; each layer is divided on its own (rule 18).

>>> [(p.amount, p.eligible) for p in build_pots(contributions=[11, 21, 21], live=[True, True, True])]
[(33, (0, 1, 2)), (20, (1, 2))]
>>> split_evenly(amount=7, winners=[2, 0], order=[0, 2])
{0: 4, 2: 3}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """Chips of one layer and the seats that can win them."""

    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotResult:
    """How one pot was divided: winners of each half and every winner's share."""

    amount: int
    eligible: tuple[int, ...]
    high: tuple[int, ...]
    low: tuple[int, ...]
    shares: Mapping[int, int]


def build_pots(*, contributions: Sequence[int], live: Sequence[bool]) -> list[Pot]:
    """Layer the contributions into the main pot and side pots, main pot first."""
    pots: list[Pot] = []
    previous = 0
    for level in sorted(set(contributions)):
        if level <= 0:
            continue
        amount = 0
        for c in contributions:
            if c > previous:
                amount += (level if c > level else c) - previous
        eligible = tuple(i for i, c in enumerate(contributions) if live[i] and c >= level)
        previous = level
        if not amount:
            continue
        if not eligible:
            # Cannot happen once uncalled chips are returned (the top contributor is
            # always matched by a live player); kept safe: the chips join the layer below.
            if pots:
                last = pots.pop()
                pots.append(Pot(amount=last.amount + amount, eligible=last.eligible))
            continue
        pots.append(Pot(amount=amount, eligible=eligible))
    return pots


def split_evenly(*, amount: int, winners: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """Divide ``amount`` evenly among ``winners``; odd chips go one at a time in ``order``.

    ``order`` lists seats by odd-chip priority (rule 19); winners absent from it are
    served after those present, by seat.
    """
    each, odd = divmod(amount, len(winners))
    rank = {seat: i for i, seat in enumerate(order)}
    ordered = sorted(winners, key=lambda s: (rank.get(s, len(rank)), s))
    shares = {seat: each for seat in ordered}
    for seat in ordered[:odd]:
        shares[seat] += 1
    return shares


def split_pot(
    *,
    pot: Pot,
    high: Mapping[int, int],
    low: Mapping[int, int | None],
    high_order: Sequence[int],
    low_order: Sequence[int],
) -> PotResult:
    """Divide one pot at showdown (rules 18 and 19).

    ``high`` and ``low`` map each eligible seat to its hand value (higher is better;
    ``None`` for no qualifying low). ``high_order`` and ``low_order`` give the odd-chip
    priority of rule 19 (highest card first; lowest card, ace low, first).
    """
    eligible = pot.eligible
    best_high = max(high[s] for s in eligible)
    high_winners = tuple(s for s in eligible if high[s] == best_high)
    lows = [v for s in eligible if (v := low[s]) is not None]
    low_winners: tuple[int, ...] = ()
    if lows:
        best_low = max(lows)
        low_winners = tuple(s for s in eligible if low[s] == best_low)
    if not low_winners or set(low_winners) == set(high_winners):
        shares = split_evenly(amount=pot.amount, winners=high_winners, order=high_order)
    else:
        low_half = pot.amount // 2
        shares = split_evenly(amount=pot.amount - low_half, winners=high_winners, order=high_order)
        for seat, chips in split_evenly(amount=low_half, winners=low_winners, order=low_order).items():
            shares[seat] = shares.get(seat, 0) + chips
    return PotResult(amount=pot.amount, eligible=eligible, high=high_winners, low=low_winners, shares=shares)


def award_uncontested(*, pot: Pot, winner: int) -> PotResult:
    """A pot won without a showdown (rule 14): all of it to the last player in."""
    return PotResult(amount=pot.amount, eligible=pot.eligible, high=(winner,), low=(), shares={winner: pot.amount})
