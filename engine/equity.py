"""Each live player's equity once their cards are face up: their expected share of every chip in the pots.

At an all-in (rule 13: betting is over, two or more hands live, at most one can still act) every live
hand is turned face up and the rest of the cards are dealt with no betting. A player's **equity** is
then ``E[chips they win] / chips in all the pots``, the high and the low halves of every pot, ties,
quartering, side pots and odd chips counted exactly as the showdown will divide them: every pot goes
through the engine's own :func:`~engine.pots.build_pots` and :func:`~engine.pots.split_pot`. The
equities of the live players sum to 1. The hand's game decides what a pot is divided by: Stud Hi-Lo's
high and low halves, Stud's best high hand (G6) or Razz's best ace-to-five low (G7), each pot whole;
``python -m engine.equity`` reads the game from the hand file (G9).

A player's **scoop** is the chance that they win every chip of every pot they are eligible for (the
main pot and each side pot they reached: both halves, or the whole of a pot nobody has a low for, and
no tie anywhere). A short stack all in scoops by taking the whole main pot: side pots they did not
reach do not count against them. A hand nobody scoops is one whose pots are split.

What is known: every live player's cards and the up cards of players who folded (dead cards). Folded
players' down cards and the stub are unseen alike: the cards to come are a uniform choice among all the
unseen cards. Rule 10 is followed: when the deck cannot give every live player a seventh card, one
community card is dealt instead (it counts in every hand, never for odd chips).

The numbers are **exact** (every run-out counted) when the work fits ``budget``. With the default that
is every sixth-street spot of two to four players (up to 491,400 deals), the eight-way one of rule 10 (a
community card: at most four deals) and fifth street heads-up (671,580 deals, counted by
inclusion-exclusion: see :mod:`engine.equity_deal`). Anything bigger (earlier streets, sixth street five-
to seven-way) is sampled: ``samples`` run-outs drawn by a :class:`random.Random` seeded from SHA-256 of
the spot (the cards face up, the dead cards, the pots and the street: nothing hidden), so the same hand
always shows the same numbers, and ``std_error`` says how far off they may be. ``python -m bench.equity``
times both beside poker-equity.

>>> import json
>>> from engine.handfile import HandFile, replay_hand
>>> text = json.dumps({
...     "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
...     "players": [{"name": "ann", "stack": 12}, {"name": "bob", "stack": 50}],
...     "cards": {"ann": ["Ah", "2h", "3h", "Ks", "9d", "8c", "4c"],
...               "bob": ["Kc", "Kd", "Qs", "Qh", "7d", "2s", "Jc"]},
...     "actions": ["bring-in", "complete", "call", "bet", "call", "bet", "call"]})
>>> result = equity_after(HandFile.from_json(text), street=6)
>>> result.exact, result.samples, round(result.equity["ann"] + result.equity["bob"], 9)
(True, 1560, 1.0)
>>> sorted(all_in_equity(replay_hand(HandFile.from_json(text))))
[5, 6]
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cards import ALL_CARDS, CARD_TEXTS
from engine.dealing import ScriptedDealer
from engine.equity_deal import (
    Counted,
    Splitter,
    Spot,
    count_exact,
    count_heads_up,
    count_sampled,
    heads_up_cost,
)
from engine.errors import EngineError
from engine.events import Action, BettingBegan
from engine.game import DECK_SIZE, Hand
from engine.handfile import HandFile, ReplayError
from engine.pots import build_pots
from engine.replay import error_json, run_on_file, status_or_error

__all__ = ["DEFAULT_BUDGET", "DEFAULT_SAMPLES", "Equity", "EquityError", "all_in_equity", "equity_after",
           "equity_of_spot", "spot_at"]

DEFAULT_BUDGET = 500_000
"""Exact when the counting takes at most this many steps (deals, or heads-up table entries and shared pairs)."""
DEFAULT_SAMPLES = 10_000
"""Run-outs drawn when exact counting is over the budget: a standard error of at most
0.5/sqrt(10,000) = 0.5% (a share is 0..1)."""


class EquityError(EngineError):
    """A hand and street the equity cannot be given for (not dealt yet, fewer than two live hands...)."""


@dataclass(frozen=True, slots=True)
class Equity:
    """Each live player's equity and chance to scoop, by name; how they were found."""

    equity: Mapping[str, float]
    """Player name -> expected share of all the pots' chips, 0..1, live players only; sums to 1."""
    scoop: Mapping[str, float]
    """Player name -> probability of winning every chip of every pot they are eligible for."""
    exact: bool
    samples: int
    """Deals counted (exact) or drawn (sampled)."""
    std_error: float
    """0.0 when exact; else the largest of the players' standard errors."""

    def to_dict(self) -> dict[str, object]:
        return {"equity": dict(self.equity), "scoop": dict(self.scoop), "exact": self.exact,
                "samples": self.samples, "std_error": self.std_error}


# ------------------------------------------------------------------------------ spots


def spot_at(hand: Hand, *, street: int) -> Spot:
    """The spot after ``street``'s cards (3-7) of a hand whose betting on that street is over (or that
    ran out from it): the live hands face up with the cards they had then, the pots as they stand."""
    if street not in range(3, 8):
        raise EquityError(f"street {street!r} is not 3 to 7")
    live = hand.live_seats
    if len(live) < 2:
        raise EquityError("fewer than two live hands: nobody to share the pots with")
    if street == 7 and not (hand.community is not None or all(len(hand.cards[s]) == 7 for s in live)):
        raise EquityError("seventh street was not dealt")
    if any(len(hand.cards[s]) < min(street, 6) for s in live):
        raise EquityError(f"street {street} was not dealt")
    known = tuple(tuple(hand.cards[s][:street]) for s in live)
    dead = [c for s in range(hand.seat_count) if hand.folded[s] for c in hand.up_cards(s)]
    community = hand.community if street == 7 else None
    seen = {c.index for cards in known for c in cards} | {c.index for c in dead}
    if community is not None:
        seen.add(community.index)
    dealt = sum(len(hand.cards[s]) for s in range(hand.seat_count) if hand.folded[s]) + len(live) * street
    community_due = street < 7 and DECK_SIZE - (dealt + (6 - street) * len(live)) < len(live)
    needs = tuple(0 if street == 7 else 6 - street + (0 if community_due else 1) for _ in live)
    stacks_before = [st - c for st, c in zip(hand.starting_stacks, hand.contributed)]  # before any chips won
    try:
        pots = build_pots(
            contributions=hand.contributed,
            live=[not f for f in hand.folded],
            all_in=[not hand.folded[s] and stacks_before[s] == 0 for s in range(hand.seat_count)],
        )
    except AssertionError as exc:  # cannot happen in a hand the engine dealt; a clear error all the same
        raise EquityError(f"the pots cannot be formed: {exc}") from None
    if not pots:
        raise EquityError("there are no chips in the pot")
    return Spot(seats=tuple(live), names=tuple(hand.names[s] for s in live), known=known, needs=needs,
                community=community, community_due=community_due,
                unseen=tuple(c for c in ALL_CARDS if c.index not in seen), pots=tuple(pots), scoring=hand.scoring)


def _hand_to(hand_file: HandFile, street: int) -> Hand:
    """The hand replayed until the betting of ``street`` is over (or as far as its actions go)."""
    if type(street) is not int or street not in range(3, 8):
        raise EquityError(f"street {street!r} is not 3 to 7")
    names = [n for n, _ in hand_file.players]
    dealer = ScriptedDealer(cards=[hand_file.cards[n] for n in names], community=hand_file.community, names=names)
    hand = Hand(stakes=hand_file.stakes, options=hand_file.options, names=names,
                stacks=[s for _, s in hand_file.players], dealer=dealer, game=hand_file.game)
    for i, text in enumerate(hand_file.actions):
        if hand.is_over or hand.street > street:
            break
        try:
            hand.act(Action(text))
        except (ValueError, EngineError) as exc:
            raise ReplayError(f"action {i} ({text!r}): {exc}", action_index=i) from None
    if hand.street < street:  # a run-out deals every street at once: only a hand that stopped is short
        raise EquityError(f"street {street} was not dealt: the hand is on street {hand.street}")
    return hand


# ------------------------------------------------------------------------------ the API


def equity_after(hand_file: HandFile, *, street: int, budget: int = DEFAULT_BUDGET,
                 samples: int = DEFAULT_SAMPLES) -> Equity:
    """The equities at the moment after ``street``'s cards were dealt, every live player's cards known
    (as at an all-in), the pots as they stand when that street's betting is over; players who folded on
    it count as folded. For a hand that ran out after an all-in this is what :func:`all_in_equity` gives.
    A hand file whose actions stop during that street's betting gives the pots as they stand then."""
    hand = _hand_to(hand_file, street)
    return equity_of_spot(spot_at(hand, street=street), street=street, budget=budget, samples=samples)


def ran_out(hand: Hand) -> bool:
    """Whether the hand is over and its betting ended at an all-in with two or more live hands (rule 13): the
    cheap test :func:`all_in_equity` begins with, for callers that would otherwise count for nothing."""
    if not hand.is_over or len(hand.live_seats) < 2:
        return False
    stacks_before = [st - c for st, c in zip(hand.starting_stacks, hand.contributed, strict=True)]
    return sum(1 for s in hand.live_seats if stacks_before[s] > 0) <= 1  # two could bet: played to seventh


def all_in_equity(hand: Hand, *, budget: int = DEFAULT_BUDGET, samples: int = DEFAULT_SAMPLES) -> dict[int, Equity]:
    """For a hand whose betting ended with two or more live hands and at most one able to act (rule 13):
    street -> equity, from the street the betting ended on to the last before seventh (on seventh the
    showdown says it all). Empty when it does not apply (a hand still being bet, won uncontested, or
    whose betting went on to seventh street)."""
    if not ran_out(hand):
        return {}
    last = max((e.street for e in hand.events if isinstance(e, BettingBegan)), default=3)
    return {street: equity_of_spot(spot_at(hand, street=street), street=street, budget=budget, samples=samples)
            for street in range(last, 7)}


def equity_of_spot(spot: Spot, *, street: int, budget: int = DEFAULT_BUDGET, samples: int = DEFAULT_SAMPLES) -> Equity:
    """Count (exactly, if it fits ``budget``) or sample the spot's run-outs and divide the pots of each."""
    heads_up = len(spot.seats) == 2 and not spot.community_due
    cost = heads_up_cost(spot) if heads_up else spot.deal_count()
    if cost <= budget:
        counted = count_heads_up(spot) if heads_up else count_exact(spot)
        exact = True
    else:
        counted = count_sampled(spot, samples=max(1, samples), rng=random.Random(seed_of(spot, street=street)))
        exact = False
    return _summarise(spot, counted, exact=exact)


def seed_of(spot: Spot, *, street: int) -> int:
    """A seed from what the table can see (never a hidden card): the same spot always samples alike."""
    text = json.dumps([street, list(spot.seats), [[CARD_TEXTS[c.index] for c in k] for k in spot.known],
                       [CARD_TEXTS[c.index] for c in spot.unseen], [[p.amount, list(p.eligible)] for p in spot.pots],
                       None if spot.community is None else str(spot.community)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _summarise(spot: Spot, counted: Counted, *, exact: bool) -> Equity:
    count = len(spot.seats)
    total = spot.total
    sums = [0.0] * count
    squares = [0.0] * count
    scoops = [0] * count
    splitter = Splitter(spot)
    for outcomes, weight in counted.weights.items():
        split = splitter.split(outcomes)
        for i in range(count):
            share = split.chips[i] / total
            sums[i] += weight * share
            squares[i] += weight * share * share
            if split.scoops[i]:
                scoops[i] += weight
    deals = counted.deals
    error = 0.0
    if not exact:
        for i in range(count):
            mean = sums[i] / deals
            error = max(error, math.sqrt(max(0.0, squares[i] / deals - mean * mean) / deals))
    labels = spot.names
    return Equity(equity={labels[i]: sums[i] / deals for i in range(count)},
                  scoop={labels[i]: scoops[i] / deals for i in range(count)},
                  exact=exact, samples=deals, std_error=error)


# ------------------------------------------------------------------------------ the command line

USAGE = "usage: python -m engine.equity HAND.json --street N (3 to 7; - for stdin)"


def run(argv: Sequence[str]) -> tuple[int, str]:
    """Return (exit status, stdout text) for ``HAND.json --street N``: the equity JSON, or status 2 and
    ``{"error": ...}`` for a bad file, a bad street, a street not dealt or fewer than two live hands."""
    args = list(argv)
    street_text = None
    if "--street" in args:
        at = args.index("--street")
        street_text = args[at + 1] if at + 1 < len(args) else None
        del args[at:at + 2]
    if street_text is None or len(args) != 1:
        return 2, error_json(USAGE)
    if not street_text.isdigit() or int(street_text) not in range(3, 8):
        return 2, error_json(f"street {street_text!r} is not 3 to 7; {USAGE}")
    street = int(street_text)

    def handle(text: bytes) -> tuple[int, str]:
        return status_or_error(lambda: (0, json.dumps(equity_after(HandFile.from_json(text), street=street).to_dict())))

    return run_on_file(args, usage=USAGE, handle=handle)


def main() -> None:
    status, out = run(sys.argv[1:])
    print(out)
    sys.exit(status)


if __name__ == "__main__":
    main()
