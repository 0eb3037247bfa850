"""Self-test of the PokerKit driver (tests/support/pokerkit_driver.py)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from pokerkit_driver import PKHand

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]


def _hand(stacks: list[int], cards: list[list[str]]) -> PKHand:
    """A hand at the default stakes: ante 1, bring-in 2, small bet 5, big bet 10."""
    return PKHand(ante=1, bring_in=2, small_bet=5, big_bet=10, stacks=stacks, cards=cards)


def test_hand_format_example() -> None:
    """The HAND_FORMAT.md example: ann 105, bob 89, cat 17 from 100/100/11."""
    hand = PKHand.play(
        ante=1, bring_in=2, small_bet=5, big_bet=10,
        stacks=[100, 100, 11],
        cards=[
            ["Ah", "3c", "6d", "6h", "2s", "8d", "Jc"],
            ["Qd", "Qs", "2c", "Td", "7s", "Ts", "5c"],
            ["Kd", "Ks", "Kh", "3s", "9h", "Jd", "2h"],
        ],
        actions=["bring-in", "complete", "call", "call", "bet", "call", "call",
                 "bet", "call", "check", "check", "check", "check"],
    )
    assert hand.payoffs() == [5, -11, 6]
    assert hand.stacks == [105, 89, 17]
    assert hand.bring_in_seat == 1
    assert hand.first_actor_by_street() == {3: 1, 4: 0, 5: 0, 6: 1, 7: 1}
    assert [amount for _, _, _, amount in hand.history] == [2, 5, 5, 3, 5, 5, 5, 10, 10, 0, 0, 0, 0]


def test_fold_to_completion_returns_nothing_uncalled() -> None:
    """Everyone folds to a completion on third street: it is won, nothing shown."""
    hand = _hand([50, 50, 50], [["Ah", "Kh", "9c"], ["2d", "3d", "4c"], ["5s", "6s", "Qh"]])
    assert hand.actor == 1 and hand.legal() == {"bring-in": 2, "cbr": 5}   # 4c lowest
    hand.act("complete")
    assert hand.legal() == {"fold": 0, "call": 5, "cbr": 10}
    hand.act("fold")
    hand.act("fold")
    assert hand.is_over and hand.actor is None and hand.legal() == {}
    assert hand.payoffs() == [-1, 2, -1]
    with pytest.raises(ValueError):
        hand.act("check")


def test_capped_round_and_showdown_split() -> None:
    """Four bets cap third street; a checked-down hand is split high/low."""
    hand = _hand([200, 200, 200], [
        ["As", "2s", "3d", "4d", "5h", "9c", "Kd"],     # wheel: low, and a straight
        ["Kc", "Kh", "7c", "Ks", "Qd", "Qh", "Jc"],     # kings full
        ["8s", "8h", "Td", "9d", "Jd", "2c", "3c"],
    ])
    assert hand.bring_in_seat == 0                        # 3d is the lowest door card
    for name in ("bring-in", "complete", "raise", "raise", "raise"):
        hand.act(name)
    assert "cbr" not in hand.legal()                      # 5 + 3 x 5 = 20: capped
    hand.act("call")
    hand.act("call")
    while not hand.is_over:
        hand.act("check")
    # pot 3 + 60 = 63: high 32 (odd chip) to seat 1, low 31 to seat 0
    assert hand.payoffs() == [31 - 21, 32 - 21, -21]


def _random_hand(rng: random.Random, players: int) -> PKHand:
    deck = DECK.copy()
    rng.shuffle(deck)
    ante = rng.choice([0, 1, 1, 2])
    bring_in = max(1, ante + rng.choice([0, 1, 1, 2]))
    small_bet = bring_in + rng.choice([1, 2, 3, 5])
    big_bet = small_bet * 2
    stacks = [rng.choice([1, 2, 3, 5, 8, 15, 30, 60, 200]) for _ in range(players)]
    cards = [deck[7 * i:7 * i + 7] for i in range(players)]
    hand = PKHand(ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=big_bet,
                  stacks=stacks, cards=cards)
    steps = 0
    while not hand.is_over:
        options = hand.legal()
        assert options, "a decision is pending but nothing is legal"
        weights = {"fold": 1, "check": 4, "call": 4, "cbr": 2, "bring-in": 3}
        names = sorted(options)
        hand.act(rng.choices(names, [weights[n] for n in names])[0])
        steps += 1
        assert steps < 200
    assert hand.actor is None
    return hand


def test_random_hands() -> None:
    rng = random.Random(20240607)
    for _ in range(200):
        players = rng.randint(2, 7)
        hand = _random_hand(rng, players)
        payoffs = hand.payoffs()
        assert sum(payoffs) == 0
        assert all(s >= 0 for s in hand.stacks)
        assert 3 <= hand.street <= 7
        firsts = hand.first_actor_by_street()
        if hand.bring_in_seat is not None:
            assert firsts[3] == hand.bring_in_seat


def test_variants_razz_and_stud() -> None:
    """Razz: the Qh door brings in over the Qc (spades highest, aces low); Stud: the 2c, as Stud Hi-Lo."""
    cards = [["Ah", "2h", "Qc"], ["3h", "4h", "Qh"], ["5h", "6h", "2c"]]
    razz = PKHand(ante=1, bring_in=2, small_bet=5, big_bet=10, stacks=[50, 50, 50], cards=cards, variant="razz")
    assert razz.bring_in_seat == 1
    stud = PKHand(ante=1, bring_in=2, small_bet=5, big_bet=10, stacks=[50, 50, 50], cards=cards, variant="stud")
    assert stud.bring_in_seat == 2
    with pytest.raises(ValueError, match="unknown variant"):
        PKHand(ante=1, bring_in=2, small_bet=5, big_bet=10, stacks=[50, 50], cards=cards[:2], variant="holdem")


def test_razz_showdown_whole_pot_to_the_best_low() -> None:
    hand = PKHand.play(
        ante=1, bring_in=2, small_bet=5, big_bet=10, stacks=[50, 50], variant="razz",
        cards=[["Ah", "2h", "3c", "4d", "5s", "Kc", "Kd"], ["Qh", "Jh", "Ks", "Qs", "Js", "9c", "9d"]],
        actions=["bring-in", "call", *["check"] * 8],
    )
    assert hand.bring_in_seat == 1 and hand.payoffs() == [3, -3]
