"""Pots (rules 11, 13) and the split of each pot (rules 18 and 19).

A pot ends only at the total of a player who is all-in, and at the top (rule 11):
chips of players who folded are dead money that stays in the pots their total
reached and opens no pot of its own, so a hand in which nobody is all-in has
exactly one pot. Pots in a row with the same eligible players are one pot.
Uncalled chips are already returned (rule 13) when the pots are formed. Each pot
is divided on its own (rule 18).

Nobody all-in: one pot, whoever folded (the first example of rule 11):

>>> [(p.amount, p.eligible) for p in build_pots(contributions=[1, 1, 38, 38],
...                                            live=[False, False, True, True], all_in=[False] * 4)]
[(78, (2, 3))]

Seat 0 all-in for 11: a main pot and one side pot:

>>> [(p.amount, p.eligible) for p in build_pots(contributions=[11, 21, 21], live=[True] * 3,
...                                            all_in=[True, False, False])]
[(33, (0, 1, 2)), (20, (1, 2))]
>>> split_evenly(amount=7, winners=[2, 0], order=[0, 2])
{0: 4, 2: 3}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.games import Scoring


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


def build_pots(*, contributions: Sequence[int], live: Sequence[bool], all_in: Sequence[bool]) -> list[Pot]:
    """Form the main pot and the side pots, main pot first (rule 11).

    ``contributions`` are each seat's chips in the hand (uncalled chips already
    returned), ``live`` whether the seat is still in the hand, ``all_in`` whether it
    is in the hand with no chips behind. A pot is cut at every all-in total and at
    the top; a folded player's chips fill the pots their total reaches.
    """
    top = max(contributions, default=0)
    if top <= 0:
        return []
    cuts = sorted({c for c, a, lv in zip(contributions, all_in, live) if a and lv and 0 < c < top} | {top})
    pots: list[Pot] = []
    whole = min(contributions) >= 0  # then a layer from 0 to the top holds every chip: their sum
    previous = 0
    dead = 0  # chips of a layer nobody live reached, carried up (unreachable; never lost)
    for level in cuts:
        if whole and previous == 0 and level == top:  # the usual one pot: nobody live is all-in below the top
            amount = dead + sum(contributions)
        else:
            amount = dead + sum(min(c, level) - min(c, previous) for c in contributions)
        eligible = tuple(i for i, c in enumerate(contributions) if live[i] and c >= level)
        previous = level
        dead = 0
        if not amount:
            continue
        if pots and (not eligible or pots[-1].eligible == eligible):
            # The same players as the pot below: one pot, divided once. A layer above
            # every live player cannot happen once uncalled chips are returned; its
            # chips would join the pot below.
            last = pots.pop()
            pots.append(Pot(amount=last.amount + amount, eligible=last.eligible))
        elif eligible:
            pots.append(Pot(amount=amount, eligible=eligible))
        else:
            dead = amount
    if dead:
        raise AssertionError(f"no live player reached any pot of {list(contributions)}")
    return pots


def split_evenly(*, amount: int, winners: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """Divide ``amount`` evenly among ``winners``; odd chips go one at a time in ``order``.

    ``order`` lists seats by odd-chip priority (rule 19); winners absent from it are
    served after those present, by seat.
    """
    if len(winners) == 1:
        return {winners[0]: amount}  # the usual case; no odd chip to place
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
    scoring: Scoring = Scoring.HI_LO,
) -> PotResult:
    """Divide one pot at showdown (rules 18 and 19; G6 and G7 by ``scoring``).

    ``high`` and ``low`` map each eligible seat to its hand value (higher is better;
    ``None`` for no qualifying low). ``high_order`` and ``low_order`` give the odd-chip
    priority of rule 19 (highest card first; lowest card, ace low, first). With
    ``Scoring.HIGH`` only ``high`` is read, with ``Scoring.LOW`` only ``low`` (Razz: every
    value present), and the best takes the whole pot.
    """
    eligible = pot.eligible
    if scoring is Scoring.LOW:
        best = max(v for s in eligible if (v := low[s]) is not None)
        winners = tuple(s for s in eligible if low[s] == best)
        shares = split_evenly(amount=pot.amount, winners=winners, order=low_order)
        return PotResult(amount=pot.amount, eligible=eligible, high=(), low=winners, shares=shares)
    best_high = max(high[s] for s in eligible)
    high_winners = tuple(s for s in eligible if high[s] == best_high)
    lows = [v for s in eligible if (v := low[s]) is not None] if scoring is Scoring.HI_LO else []
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


def award_uncontested(*, pot: Pot, winner: int, scoring: Scoring = Scoring.HI_LO) -> PotResult:
    """A pot won without a showdown (rule 14): all of it to the last player in (named a low
    winner in Razz, G9, a high winner otherwise)."""
    if scoring is Scoring.LOW:
        return PotResult(amount=pot.amount, eligible=pot.eligible, high=(), low=(winner,), shares={winner: pot.amount})
    return PotResult(amount=pot.amount, eligible=pot.eligible, high=(winner,), low=(), shares={winner: pot.amount})
