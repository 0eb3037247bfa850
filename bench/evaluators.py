"""Evaluations per second: this engine against PokerKit and phevaluator.

Three evaluators: the high hand, the eight-or-better low, and Razz's ace-to-five low
(PokerKit's ``RegularLowHand``), printed beside the eight-or-better one.

Every evaluator gets the same seeded random 7-card hands, converted beforehand to
its own card type, so only the evaluation is timed. Each figure is the best of 3
passes (time.perf_counter). The engine memoises by rank multiset: its figure is the
warm one, and ``first pass`` is the pass that starts from empty memos. PokerKit
takes about half a millisecond a hand, so it is timed on at most 2,000 of them.

Run: ``python -m bench.evaluators``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from phevaluator import evaluate_cards  # type: ignore[import-untyped]
from pokerkit import Card as PKCard
from pokerkit import EightOrBetterLowHand, RegularLowHand, StandardHighHand

from engine import evaluate, lowball
from engine.cards import ALL_CARDS, Card

POKERKIT_MAX_HANDS = 2_000
REPEATS = 3

_T = TypeVar("_T")


def _seconds(function: Callable[[_T], Any], inputs: Sequence[_T]) -> float:
    start = time.perf_counter()
    for item in inputs:
        function(item)
    return time.perf_counter() - start


def _best_rate(function: Callable[[_T], Any], inputs: Sequence[_T]) -> float:
    return len(inputs) / min(_seconds(function, inputs) for _ in range(REPEATS))


def _clear_engine_memos() -> None:
    evaluate._HIGH.clear()
    evaluate._LOW.clear()
    evaluate._FLUSH.clear()
    lowball._RAZZ.clear()


def run(*, hands: int = 20000, seed: int = 1) -> dict[str, float]:
    """Measure and print evaluations per second; return them by name."""
    rng = random.Random(seed)
    deals: list[list[Card]] = [rng.sample(ALL_CARDS, 7) for _ in range(hands)]
    pk_deals = [tuple(PKCard.clean("".join(map(str, cards)))) for cards in deals[:POKERKIT_MAX_HANDS]]
    phe_deals = [[card.index for card in cards] for cards in deals]  # phevaluator's card ids

    def pk_high(cards: tuple[PKCard, ...]) -> object:
        return StandardHighHand.from_game(cards)

    def pk_low(cards: tuple[PKCard, ...]) -> object:
        return EightOrBetterLowHand.from_game_or_none(cards)

    def pk_razz(cards: tuple[PKCard, ...]) -> object:
        return RegularLowHand.from_game(cards)

    def phe_high(ids: list[int]) -> object:
        return evaluate_cards(*ids)

    _clear_engine_memos()
    rates = {
        "high_engine_first_pass": len(deals) / _seconds(evaluate.high_value, deals),
        "low_engine_first_pass": len(deals) / _seconds(evaluate.low_value, deals),
        "razz_engine_first_pass": len(deals) / _seconds(lowball.razz_value, deals),
        "high_engine": _best_rate(evaluate.high_value, deals),
        "low_engine": _best_rate(evaluate.low_value, deals),
        "razz_engine": _best_rate(lowball.razz_value, deals),
        "high_pokerkit": _best_rate(pk_high, pk_deals),
        "low_pokerkit": _best_rate(pk_low, pk_deals),
        "razz_pokerkit": _best_rate(pk_razz, pk_deals),
        "high_phevaluator": _best_rate(phe_high, phe_deals),
    }
    high, low, razz = rates["high_engine"], rates["low_engine"], rates["razz_engine"]
    print(f"{hands:,} random 7-card hands (seed {seed}); PokerKit on {len(pk_deals):,}; best of {REPEATS}")
    print(
        f"high evals/s  engine {high:,.0f}  pokerkit {rates['high_pokerkit']:,.0f}"
        f"  phevaluator {rates['high_phevaluator']:,.0f}"
        f"  (engine/pokerkit {high / rates['high_pokerkit']:,.0f}x,"
        f" engine/phevaluator {high / rates['high_phevaluator']:.2f}x;"
        f" engine first pass {rates['high_engine_first_pass']:,.0f})"
    )
    print(
        f"low evals/s   engine {low:,.0f}  pokerkit {rates['low_pokerkit']:,.0f}"
        f"  (engine/pokerkit {low / rates['low_pokerkit']:,.0f}x;"
        f" engine first pass {rates['low_engine_first_pass']:,.0f})"
    )
    print(
        f"razz evals/s  engine {razz:,.0f}  pokerkit {rates['razz_pokerkit']:,.0f}"
        f"  (engine/pokerkit {razz / rates['razz_pokerkit']:,.0f}x; razz/8-or-better low {razz / low:.2f}x;"
        f" engine first pass {rates['razz_engine_first_pass']:,.0f})"
    )
    return rates


if __name__ == "__main__":
    run()
