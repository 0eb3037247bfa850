"""Random finished hands for the export tests: all-ins, side pots, caps, folds, community cards."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine import ALL_CARDS, Action, Deck, DeckDealer, Hand, HandFile, Options, ShortAllIn, Stakes, replay_hand
from engine.games import Game

VECTORS = Path(__file__).parents[1] / "vectors"
STAKES = (
    Stakes(), Stakes(ante=2, bring_in=3, small_bet=10, big_bet=20), Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4),
    Stakes(ante=2, bring_in=2, small_bet=4, big_bet=8), Stakes(ante=5, bring_in=10, small_bet=25, big_bet=50),
)
ODD_NAMES = ("ann", "b:ob", "[cat]", " dan ", "eve", "ann ", "fay#1", "gus")


def random_hand(rng: random.Random, *, options: Options | None = None, players: int | None = None,
                fold_weight: float = 0.25, stakes: Stakes | None = None, game: Game = Game.STUD8) -> Hand:
    """One hand of ``game`` played to its end with random legal decisions (at ``stakes``, else one of
    :data:`STAKES`)."""
    n = players or rng.randint(2, 8)
    stakes = stakes or rng.choice(STAKES)
    stacks = [rng.choice([1, 2, 3, 4, 6, 9, 14, 20, 33, 60, 120]) if rng.random() < 0.6 else rng.randint(1, 300)
              for _ in range(n)]
    if options is None:
        options = Options(heads_up_cap=rng.random() < 0.3,
                          short_all_in=ShortAllIn.FULL if rng.random() < 0.3 else ShortAllIn.HALF)
    names = [f"{ODD_NAMES[i]}" for i in range(n)] if rng.random() < 0.5 else [f"p{i}" for i in range(n)]
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    hand = Hand(stakes=stakes, options=options, names=names, stacks=stacks, dealer=DeckDealer(Deck.from_cards(deck)),
                game=game)
    while not hand.is_over:
        legal = list(hand.legal_actions())
        weights = [fold_weight if a is Action.FOLD else (
            2.0 if a in (Action.RAISE, Action.BET, Action.COMPLETE, Action.BET_BIG, Action.RAISE_BIG) else 1.0)
            for a in legal]
        if sum(weights) == 0:
            weights = [1.0] * len(legal)
        hand.act(rng.choices(legal, weights)[0])
    return hand


def random_time(rng: random.Random) -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randint(0, 365 * 86400))


def example_hand() -> Hand:
    """HAND_FORMAT.md's example: cat all-in on fourth street, a main pot and a side pot."""
    return replay_hand(HandFile.from_json((VECTORS / "hand_format_example.json").read_text()))
