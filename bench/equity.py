"""Equity at an all-in: this engine (engine.equity, pure Python) beside poker-equity (Rust), same spots, same run.

For third to sixth street, heads-up and three-way, Stud Hi-Lo, random single-pot spots (every live
player all in for the same amount: poker-equity divides one pot, and a pot of 240 chips splits into
whole chips however it is shared, so both answer the same question):

* ``exact``: the spots our budget counts exactly (fifth street heads-up, sixth street), beside
  poker-equity's ``exact_from_text``; agreement means equal to 1e-9 for every player.
* ``sampled``: our sampler (``budget=0``, the default sample count) beside poker-equity's
  ``chunk_from_text`` with as many samples on one thread; agreement means within three of our standard
  errors (plus its own) of poker-equity's exact answer, or of a 1,000,000-sample one where it has none.
* ``default``: what the board gets (exact where it fits the budget, else sampled).

Then the time of an all-in's numbers: random all-in hands (2 to 4 players, then a quarter as many of 5 to 8;
random stacks, a shuffled deck),
every street of :func:`engine.equity.all_in_equity` timed, p50, p99 and max per street and per hand.
Goal: each street's numbers within half a second at p99.

Run: ``python -m bench.equity [--spots N] [--hands N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import poker_equity as pe  # type: ignore[import-untyped]

from engine import ALL_CARDS, Deck, DeckDealer, Hand, Stakes
from engine.equity import DEFAULT_SAMPLES, Equity, all_in_equity, equity_of_spot, spot_at
from engine.equity_deal import Spot
from engine.pots import Pot

REFERENCE_SAMPLES = 1_000_000


@dataclass(frozen=True, slots=True)
class Row:
    street: int
    players: int
    mode: str
    ours_ms: float
    theirs_ms: float
    agree: int
    spots: int


def random_spot(rng: random.Random, *, players: int, street: int) -> Spot:
    """Every live player's ``street`` cards face up, one or two dead up cards, one pot of 240."""
    cards = rng.sample(ALL_CARDS, 52)
    known = tuple(tuple(cards[i * 7:i * 7 + street]) for i in range(players))
    dead = set(cards[52 - rng.randrange(0, 3):])
    gone = {c for k in known for c in k} | dead
    return Spot(seats=tuple(range(players)), names=tuple(f"p{i}" for i in range(players)), known=known,
                needs=(7 - street,) * players, community=None, community_due=False,
                unseen=tuple(c for c in ALL_CARDS if c not in gone),
                pots=(Pot(amount=240, eligible=tuple(range(players))),))


def their_fields(spot: Spot) -> tuple[list[str], str]:
    gone = set(ALL_CARDS) - set(spot.unseen) - {c for k in spot.known for c in k}
    return ["".join(map(str, k)) for k in spot.known], " ".join(map(str, sorted(gone)))


def timed(work: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = work()
    return value, time.perf_counter() - start


def their_equities(result: dict[str, Any]) -> list[float]:
    return [p["equity"] for p in result["players"]]


def compare_spots(*, spots: int, seed: int) -> list[Row]:
    rows: list[Row] = []
    rng = random.Random(seed)
    for players in (2, 3):
        for street in (3, 4, 5, 6):
            cases = [random_spot(rng, players=players, street=street) for _ in range(spots)]
            exact_here = equity_of_spot(cases[0], street=street).exact
            modes = ["exact", "sampled"] if exact_here else ["sampled"]
            for mode in modes:
                ours_t: list[float] = []
                theirs_t: list[float] = []
                agree = 0
                for spot in cases:
                    hands, dead = their_fields(spot)
                    if mode == "exact":
                        ours, t = timed(partial(equity_of_spot, spot, street=street))
                        theirs, u = timed(partial(pe.exact_from_text, "stud_hi_lo", hands, "", dead))
                        ok = ours.exact and theirs is not None and all(
                            abs(a - b) < 1e-9 for a, b in zip(ours.equity.values(), their_equities(theirs)))
                    else:
                        ours, t = timed(partial(equity_of_spot, spot, street=street, budget=0))
                        theirs, u = timed(partial(pe.chunk_from_text, "stud_hi_lo", hands, "", dead,
                                                  samples=DEFAULT_SAMPLES, seed=1, threads=1))
                        ok = _within_three(ours, reference(hands, dead, exact=exact_here))
                    ours_t.append(t)
                    theirs_t.append(u)
                    agree += ok
                rows.append(Row(street=street, players=players, mode=mode, ours_ms=1000 * statistics.median(ours_t),
                                theirs_ms=1000 * statistics.median(theirs_t), agree=agree, spots=spots))
    return rows


def reference(hands: list[str], dead: str, *, exact: bool) -> tuple[list[float], list[float]]:
    """poker-equity's answer to judge a sample by: exact where we count exactly, else a million samples."""
    if exact:
        result = pe.exact_from_text("stud_hi_lo", hands, "", dead)
        if result is not None:
            return their_equities(result), [0.0] * len(hands)
    result = pe.chunk_from_text("stud_hi_lo", hands, "", dead, samples=REFERENCE_SAMPLES, seed=7)
    return their_equities(result), [p["std_error"] for p in result["players"]]


def _within_three(ours: Equity, reference: tuple[list[float], list[float]]) -> bool:
    values, errors = reference
    return all(abs(a - b) <= 3 * (ours.std_error + e) for a, b, e in zip(ours.equity.values(), values, errors))


def all_in_times(*, hands: int, seed: int, players: Sequence[int]) -> tuple[
        dict[int, list[float]], list[float], dict[str, int]]:
    """Seconds per street of all_in_equity on random all-in hands, the seconds per hand, and how many were exact."""
    rng = random.Random(seed)
    per_street: dict[int, list[float]] = {3: [], 4: [], 5: [], 6: []}
    per_hand: list[float] = []
    kinds = {"exact": 0, "sampled": 0}
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
    while len(per_hand) < hands:
        count = rng.choice(players)
        hand = Hand(stakes=Stakes(), names=names[:count], stacks=[rng.randrange(4, 90) for _ in range(count)],
                    dealer=DeckDealer(Deck.shuffled(rng=rng)))
        while not hand.is_over:
            legal = {a.value for a in hand.legal_actions()}
            hand.act(next(a for a in ("raise", "bet", "complete", "call", "check", "bring-in") if a in legal))
        streets = sorted(all_in_equity(hand, budget=-1, samples=1))  # cheap: which streets, if any
        if not streets:
            continue
        total = 0.0
        for street in streets:
            spot = spot_at(hand, street=street)
            result, t = timed(partial(equity_of_spot, spot, street=street))
            per_street[street].append(t)
            total += t
            kinds["exact" if result.exact else "sampled"] += 1
        per_hand.append(total)
    return per_street, per_hand, kinds


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--spots", type=int, default=10, help="random spots per street, players and mode")
    parser.add_argument("--hands", type=int, default=60, help="random all-in hands for the p99")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("Stud Hi-Lo equity, engine.equity (pure Python) beside poker-equity 0.1.1"
          f" (Rust, one thread for sampling): median per spot over {args.spots} random single-pot spots")
    print(f"{'street':>6} {'players':>7} {'mode':>8} {'ours ms':>9} {'theirs ms':>10} {'ratio':>8} {'agree':>7}")
    rows = compare_spots(spots=args.spots, seed=args.seed)
    for r in rows:
        ratio = r.ours_ms / r.theirs_ms if r.theirs_ms else float("inf")
        print(f"{r.street:>6} {r.players:>7} {r.mode:>8} {r.ours_ms:>9.1f} {r.theirs_ms:>10.2f} {ratio:>7.1f}x "
              f"{r.agree:>3}/{r.spots}")
    exact = [r for r in rows if r.mode == "exact"]
    sampled = [r for r in rows if r.mode == "sampled"]
    print(f"agreement: exact {sum(r.agree for r in exact)}/{sum(r.spots for r in exact)} equal to 1e-9; "
          f"sampled {sum(r.agree for r in sampled)}/{sum(r.spots for r in sampled)} within 3 standard errors")
    for players, hands in (((2, 3, 4), args.hands), ((5, 6, 7, 8), max(1, args.hands // 4))):
        report_all_ins(players=players, hands=hands, seed=args.seed)


def report_all_ins(*, players: Sequence[int], hands: int, seed: int) -> None:
    per_street, per_hand, kinds = all_in_times(hands=hands, seed=seed, players=players)
    print(f"\nAn all-in's numbers ({hands} random all-in hands, {players[0]}-{players[-1]} players; "
          f"{kinds['exact']} streets exact, {kinds['sampled']} sampled), seconds:")
    print(f"{'street':>8} {'count':>6} {'p50':>7} {'p99':>7} {'max':>7}")
    for street, values in per_street.items():
        if values:
            print(f"{street:>8} {len(values):>6} {percentile(values, 0.5):>7.3f} {percentile(values, 0.99):>7.3f} "
                  f"{max(values):>7.3f}")
    every = [t for values in per_street.values() for t in values]
    print(f"{'any':>8} {len(every):>6} {percentile(every, 0.5):>7.3f} {percentile(every, 0.99):>7.3f} "
          f"{max(every):>7.3f}"
          f"   goal: p99 <= 0.5 s a street ({'met' if percentile(every, 0.99) <= 0.5 else 'NOT met'})")
    print(f"{'hand':>8} {len(per_hand):>6} {percentile(per_hand, 0.5):>7.3f} {percentile(per_hand, 0.99):>7.3f} "
          f"{max(per_hand):>7.3f}   (every street of one all-in together)")


if __name__ == "__main__":
    main()
