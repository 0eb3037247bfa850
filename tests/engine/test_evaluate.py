"""Tests of engine.evaluate: rules 16 (high hand) and 17 (eight-or-better low).

Besides the named rule tests, the evaluator is checked against
* phevaluator (high) on 100,000 random 7-card hands: equal values exactly where
  phevaluator's ranks are equal, and the same order;
* PokerKit's EightOrBetterLowHand on the same 100,000 hands: the same five low
  ranks (or no low for both), and the same order. PokerKit takes ~0.3 ms a hand,
  so its answers are memoised by the hand's rank multiset (suits cannot matter to
  an eight-or-better low; PokerKit's lookup registers every low for both suited and
  unsuited cards), which leaves ~30,000 PokerKit calls;
* PokerKit's StandardHighHand (value order and category) on 4,000 of those hands
  (~0.5 ms a hand);
* an independent brute-force evaluator here (all 5-card subsets) on random 5- to
  8-card hands, and by hypothesis.
"""

from __future__ import annotations

import doctest
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_cards  # type: ignore[import-untyped]
from pokerkit import EightOrBetterLowHand, StandardHighHand

import engine.evaluate
from engine.cards import ALL_CARDS, Card, parse_cards
from engine.errors import CardError, DuplicateCardError
from engine.evaluate import (
    HandCategory,
    HighHand,
    LowHand,
    best_high,
    best_low,
    category_of,
    high_name,
    high_value,
    high_value_of_key,
    low_name,
    low_value,
    low_value_of_key,
    value_ranks,
)

CROSS_CHECK_HANDS = 100_000
POKERKIT_HIGH_HANDS = 4_000


def hv(text: str) -> int:
    return high_value(parse_cards(text))


def lv(text: str) -> int | None:
    return low_value(parse_cards(text))


def low_ranks(text: str) -> list[int] | None:
    """The low ranks used by best_low, highest first, ace as 1."""
    low = best_low(parse_cards(text))
    return None if low is None else [c.low_rank for c in low.cards]


def cards_str(cards: Iterable[Card]) -> str:
    return " ".join(map(str, cards))


def random_hands(count: int, size: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(ALL_CARDS, size) for _ in range(count)]


def assert_same_order(pairs: Iterable[tuple[int, int]], *, higher_is_better: bool) -> int:
    """Check that our values order hands exactly as a reference does.

    ``pairs`` holds (our value, reference value) for many hands. Equal ours must
    mean equal theirs and vice versa, and sorting by ours must sort theirs (the
    same way round or reversed). Returns how many distinct values were seen.
    """
    ours_to_ref: dict[int, int] = {}
    ref_to_ours: dict[int, int] = {}
    for ours, ref in pairs:
        assert ours_to_ref.setdefault(ours, ref) == ref, (ours, ref, ours_to_ref[ours])
        assert ref_to_ours.setdefault(ref, ours) == ours, (ours, ref, ref_to_ours[ref])
    refs = [ref for _, ref in sorted(ours_to_ref.items())]
    assert refs == sorted(refs, reverse=not higher_is_better)
    return len(refs)


# ---------------------------------------------------------------------------------
# An independent brute-force reference: every 5-card subset, evaluated the old way


def ref_high5(cards: Sequence[Card]) -> tuple[int, ...]:
    counts = Counter(c.rank for c in cards)
    # ranks by (count, rank), highest first: the reading order of the hand
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [count for _, count in groups]
    ranks = [rank for rank, _ in groups]
    flush = len({c.suit for c in cards}) == 1
    straight_top = 0
    if len(counts) == 5:
        distinct = sorted(counts)
        if distinct[-1] - distinct[0] == 4:
            straight_top = distinct[-1]
        elif distinct == [2, 3, 4, 5, 14]:
            straight_top = 5
    if straight_top and flush:
        return (8, straight_top)
    if shape == [4, 1]:
        return (7, *ranks)
    if shape == [3, 2]:
        return (6, *ranks)
    if flush:
        return (5, *ranks)
    if straight_top:
        return (4, straight_top)
    if shape == [3, 1, 1]:
        return (3, *ranks)
    if shape == [2, 2, 1]:
        return (2, *ranks)
    if shape == [2, 1, 1, 1]:
        return (1, *ranks)
    return (0, *ranks)


def ref_high(cards: Sequence[Card]) -> tuple[int, ...]:
    return max(ref_high5(five) for five in combinations(cards, 5))


def as_int(ranking: tuple[int, ...]) -> int:
    """A reference ranking tuple as an int that orders the same way."""
    value = 0
    for part in ranking + (0,) * (6 - len(ranking)):
        value = value * 16 + part
    return value


def ref_low(cards: Sequence[Card]) -> tuple[int, ...] | None:
    """The best low's ranks, highest first (ace = 1), by trying every 5 cards."""
    lows = []
    for five in combinations(cards, 5):
        ranks = sorted((c.low_rank for c in five), reverse=True)
        if len(set(ranks)) == 5 and ranks[0] <= 8:
            lows.append(tuple(ranks))
    return min(lows) if lows else None


def our_low_ranks(value: int | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    mask = 255 - value
    return tuple(r for r in range(8, 0, -1) if mask >> (r - 1) & 1)


# ---------------------------------------------------------------------------------
# Rule 16: the high hand


def test_rule_16_ace_plays_high_or_low_in_a_straight() -> None:
    assert best_high(parse_cards("Ac Kd Qh Js Tc 2d 3h")).name == "straight, ace high"
    assert best_high(parse_cards("Ac 2d 3h 4s 5c Kd Kh")).name == "straight, five high"
    # no wrap-around: Q-K-A-2-3 is no straight
    assert best_high(parse_cards("Qc Kd Ah 2s 3c")).name == "ace high"
    assert best_high(parse_cards("Jc Qd Kh As 2c 3d")).name == "ace high"


def test_rule_16_the_wheel_is_the_lowest_straight() -> None:
    wheel = hv("5c 4d 3h 2s Ac")
    six_high = hv("6c 5d 4h 3s 2c")
    broadway = hv("Ac Kd Qh Js Tc")
    trip_aces = hv("Ac Ad Ah Ks Qc")
    assert trip_aces < wheel < six_high < broadway
    # with a six, the same cards make the six-high straight
    assert hv("6d 5c 4d 3h 2s Ac") == six_high
    hand = best_high(parse_cards("Kd 5c 4d 3h 2s Ac Ks"))
    assert hand.category is HandCategory.STRAIGHT
    assert cards_str(hand.cards) == "5c 4d 3h 2s Ac"


def test_rule_16_a_steel_wheel_is_a_straight_flush_five_high() -> None:
    steel = best_high(parse_cards("5h 4h 3h 2h Ah Kh Ac"))
    assert steel.category is HandCategory.STRAIGHT_FLUSH
    assert steel.name == "straight flush, five high"
    assert cards_str(steel.cards) == "5h 4h 3h 2h Ah"
    assert hv("Ac Ad Ah As Kc") < steel.value < hv("6h 5h 4h 3h 2h")
    assert hv("Ah Kh Qh Jh Th") == max(hv("Ah Kh Qh Jh Th 9h 8h"), steel.value)


def test_rule_16_categories_in_order() -> None:
    hands = [
        ("Ac Qd 9h 7s 5c 4d 2h", HandCategory.HIGH_CARD),
        ("2c 2d 3h 4s 6c 7d 8h", HandCategory.ONE_PAIR),
        ("2c 2d 3h 3s 5c 7d 8h", HandCategory.TWO_PAIR),
        ("2c 2d 2h 3s 5c 7d 8h", HandCategory.THREE_OF_A_KIND),
        ("Ac 2d 3h 4s 5c 9d Jh", HandCategory.STRAIGHT),
        ("2c 3c 4c 5c 7c 9d Jh", HandCategory.FLUSH),
        ("2c 2d 2h 3s 3c 7d 8h", HandCategory.FULL_HOUSE),
        ("2c 2d 2h 2s 3c 4d 5h", HandCategory.FOUR_OF_A_KIND),
        ("Ac 2c 3c 4c 5c 9d Jh", HandCategory.STRAIGHT_FLUSH),
    ]
    values = [hv(text) for text, _ in hands]
    assert values == sorted(values) and len(set(values)) == len(values)
    for (text, category), value in zip(hands, values, strict=True):
        assert category_of(value) is category
        assert best_high(parse_cards(text)).category is category
    # the best of a category beats the worst of the next
    assert hv("Ac Kd Qh Js 9c") < hv("2c 2d 3h 4s 5c")
    assert hv("Ac Ad Kh Ks Qc") < hv("2c 2d 2h 3s 4c")
    assert hv("Ac Ad Ah Ks Qc") < hv("Ac 2d 3h 4s 5c")
    assert hv("Ac Kd Qh Js Tc") < hv("2c 3c 4c 5c 7c")
    assert hv("Ac Kc Qc Jc 9c") < hv("2c 2d 2h 3s 3c")
    assert hv("Ac Ad Ah Ks Kc") < hv("2c 2d 2h 2s 3c")
    assert hv("Ac Ad Ah As Kc") < hv("Ac 2c 3c 4c 5c")


def test_rule_16_kickers() -> None:
    assert hv("Ac Ad Kh 5s 3c") > hv("Ah As Qh Js Tc")  # pair: first kicker
    assert hv("Ac Ad Kh 5s 4c") > hv("Ah As Kd 5h 3d")  # pair: third kicker
    assert hv("Ac Ad 8h 8s 3c") > hv("Ah As 8d 8c 2d")  # two pair: kicker
    assert hv("Ac Ad 3h 3s Kc") < hv("Ah As 4d 4c 2d")  # two pair: second pair first
    assert hv("Kc Kd Qh Qs Jc Jd 2c") == hv("Kh Ks Qc Qd Jh 3d 4s")  # third pair = kicker
    assert hv("7c 7d 7h As 2c") > hv("7c 7d 7h Ks Qc")  # trips: kicker
    assert hv("Ac Qd 9h 7s 5c") > hv("Ac Qd 9h 7s 4c")  # high card: fifth card
    assert hv("Ac Kc 9c 7c 5c") > hv("Ad Kd 9d 7d 4d")  # flush: fifth card
    assert hv("9c 9d 9h 9s Ac") > hv("9c 9d 9h 9s Kc")  # quads: kicker
    assert hv("Qc Qd Qh 3s 3c") > hv("Jc Jd Jh As Ac")  # full house: trips first
    assert hv("Qc Qd Qh 4s 4c") > hv("Qc Qd Qh 3s 3c")  # then the pair
    # only five cards play: a sixth and seventh card never break a tie
    assert hv("Ac Kd Qh Js 9c 8d 7h") == hv("Ac Kd Qh Js 9c 3d 2h")
    assert hv("Ac Ad Kh Qs Jc 9d 8h") == hv("Ah As Kd Qc Jh 3d 2h")


def test_rule_16_suits_never_break_ties() -> None:
    assert hv("As Ks Qs Js 9s") == hv("Ac Kc Qc Jc 9c")
    assert hv("Ts 9s 8s 7s 6s") == hv("Tc 9c 8c 7c 6c")
    assert hv("Ac Kd Qh Js 9c 2d") == hv("As Kh Qd Jc 9h 2h")


def test_rule_16_best_five_of_seven_and_eight() -> None:
    # a flush beats the straight in the same cards
    hand = best_high(parse_cards("9h 8h 7c 6h 5d 2h Kh"))
    assert hand.name == "flush, king high"
    assert cards_str(hand.cards) == "Kh 9h 8h 6h 2h"
    # the straight flush, not the higher flush
    hand = best_high(parse_cards("9h 8h 7h 6h 5h Ah Kh"))
    assert hand.name == "straight flush, nine high"
    assert cards_str(hand.cards) == "9h 8h 7h 6h 5h"
    # 8 cards: a full house beats the flush beside it; two quads take the higher
    hand = best_high(parse_cards("Ah Kh Qh Jh 9h Ac Ad Kc"))
    assert hand.name == "full house, aces full of kings"
    assert cards_str(hand.cards) == "Ah Ad Ac Kh Kc"
    hand = best_high(parse_cards("Ac Ad Ah As Kc Kd Kh Ks"))
    assert hand.name == "four of a kind, aces"
    assert cards_str(hand.cards) == "As Ah Ad Ac Ks"
    # 8 cards: two trips make a full house with the higher as the set
    assert best_high(parse_cards("Tc Td Th 4c 4d 4h 2s 3s")).name == "full house, tens full of fours"
    # 8 cards: a flush with 6 cards of the suit takes the top five
    hand = best_high(parse_cards("2s 4s 6s 8s Ts Qs Ac Kd"))
    assert cards_str(hand.cards) == "Qs Ts 8s 6s 4s"
    # 5 cards
    assert best_high(parse_cards("Kc Kd 4h 4s 4c")).name == "full house, fours full of kings"


def test_rule_16_names_and_reading_order() -> None:
    cases = [
        ("9s 8s 7s 6s 5s Ad", "straight flush, nine high", "9s 8s 7s 6s 5s"),
        ("As Ks Qs Js Ts 2d", "straight flush, ace high", "As Ks Qs Js Ts"),
        ("Kc 2d Kh Ks Kd 3c", "four of a kind, kings", "Ks Kh Kd Kc 3c"),
        ("3c Qs 3d Qh 9s Qd 2h", "full house, queens full of threes", "Qs Qh Qd 3d 3c"),
        ("6c 6d 6h 6s 2c", "four of a kind, sixes", "6s 6h 6d 6c 2c"),
        ("2d 9d Ad 4d 7d Ks", "flush, ace high", "Ad 9d 7d 4d 2d"),
        ("2c 3d 4h 5s 6c Kd", "straight, six high", "6c 5s 4h 3d 2c"),
        ("Ac 2d 3h 4s 5c", "straight, five high", "5c 4s 3h 2d Ac"),
        ("7c 7d 7h As 2c 4d", "three of a kind, sevens", "7h 7d 7c As 4d"),
        ("8c Ad 8h As 2c 4d Kh", "two pair, aces and eights", "As Ad 8h 8c Kh"),
        ("9c 9d 2h 5s Jc 4d", "pair of nines", "9d 9c Jc 5s 4d"),
        ("Ac 9d 2h 5s Jc 4d 7d", "ace high", "Ac Jc 9d 7d 5s"),
    ]
    for text, name, used in cases:
        hand = best_high(parse_cards(text))
        assert (hand.name, cards_str(hand.cards)) == (name, used), text
        assert high_name(hand.value) == name
        assert hand.value == hv(text)
        assert isinstance(hand, HighHand)


# ---------------------------------------------------------------------------------
# Rule 17: the eight-or-better low


def test_rule_17_lows_compare_from_the_highest_card_down() -> None:
    assert (lv("7c 5d 4h 3s 2c") or 0) > (lv("8c 4d 3h 2s Ac") or 0)
    assert (lv("6c 5d 3h 2s Ac") or 0) > (lv("8c 5d 4h 3s 2c") or 0)
    assert (lv("7c 4d 3h 2s Ac") or 0) > (lv("7c 5d 4h 3s 2c") or 0)
    # the wheel is the best low, 8-7-6-5-4 the worst
    values = [lv(text) for text in ("5c 4d 3h 2s Ac", "6c 4d 3h 2s Ac", "8c 7d 6h 5s 4c")]
    assert values[0] == max(lv(" ".join(f"{r}c" for r in five)) or 0 for five in combinations("A2345678", 5))
    assert values == sorted(values, key=lambda v: -(v or 0))
    assert lv("5c 4d 3h 2s Ac") == 224


def test_rule_17_pairs_and_nine_or_higher_disqualify() -> None:
    assert lv("8c 7d 6h 5s 5c") is None  # a pair: only four different ranks
    assert lv("9c 5d 4h 3s 2c") is None  # a nine
    assert lv("Kc 5d 4h 3s 2c Qd Jh") is None
    assert lv("Ac Ad 2h 2s 3c 3d 4h") is None  # seven low cards, four ranks
    assert best_low(parse_cards("Ac Ad 2h 2s 3c 3d 4h Kc")) is None
    # an ace is low (one) and pairs beside five low ranks do not hurt
    assert low_ranks("Ac Ad 2h 2s 3c 4d 7h") == [7, 4, 3, 2, 1]


def test_rule_17_straights_and_flushes_do_not_matter() -> None:
    assert lv("5h 4h 3h 2h Ah") == lv("5c 4d 3h 2s Ac")  # a steel wheel is the wheel
    assert lv("8s 6s 4s 3s As") == lv("8c 6d 4h 3s Ac")
    assert lv("6c 5d 4h 3s 2c") == lv("6s 5s 4s 3s 2s")
    # high and low may use different cards
    cards = parse_cards("5h 4h 3h 2h Ah Kc Kd")
    assert best_high(cards).name == "straight flush, five high"
    assert best_low(cards) == LowHand(value=224, cards=tuple(parse_cards("5h 4h 3h 2h Ah")), name="wheel")


def test_rule_17_five_distinct_low_ranks_among_seven_cards_qualify() -> None:
    assert low_ranks("Kc Kd 8h 6s 4c 3d Ah") == [8, 6, 4, 3, 1]
    assert low_ranks("Kc 9d 7h 2s 7c 3d Ah 4d") == [7, 4, 3, 2, 1]
    # the best five of the low cards: 8-7-6-5-4-3-2 plays 6-5-4-3-2
    assert low_ranks("8c 7d 6h 5s 4c 3d 2h") == [6, 5, 4, 3, 2]
    assert low_ranks("8c 7d 6h 5s 4c 3d 2h Ah") == [5, 4, 3, 2, 1]


def test_rule_17_names_and_cards() -> None:
    low = best_low(parse_cards("8d 6s 4h 3c Ad Kc Ks"))
    assert low is not None
    assert low.name == "8-6-4-3-A low"
    assert cards_str(low.cards) == "8d 6s 4h 3c Ad"
    assert low_name(low.value) == "8-6-4-3-A low"
    low = best_low(parse_cards("As Ah 2c 3d 4s 5h 2d"))
    assert low is not None
    assert (low.name, cards_str(low.cards)) == ("wheel", "5h 4s 3d 2c Ah")  # lowest suits
    assert low_name(low_value(parse_cards("6c 5d 3h 2s Ac")) or 0) == "6-5-3-2-A low"
    assert low_name(low_value(parse_cards("8c 7d 6h 5s 4c")) or 0) == "8-7-6-5-4 low"


def test_rule_17_five_and_eight_card_hands() -> None:
    assert low_ranks("7c 5d 4h 3s 2c") == [7, 5, 4, 3, 2]
    assert low_ranks("7c 5d 4h 3s 3c") is None
    assert low_ranks("Kc Qd Jh Ts 9c 8d 7h 6s") is None
    assert low_ranks("Kc Qd Jh 5s 4c 3d 2h 2s") is None
    assert low_ranks("Kc Qd 6h 5s 4c 3d 2h 2s") == [6, 5, 4, 3, 2]


# ---------------------------------------------------------------------------------
# Inputs, keys, docstrings


@pytest.mark.parametrize("function", [high_value, low_value, best_high, best_low], ids=lambda f: f.__name__)
@pytest.mark.parametrize("count", [0, 1, 4, 9, 12])
def test_fewer_than_5_or_more_than_8_cards_are_refused(
    function: Callable[[Sequence[Card]], object], count: int
) -> None:
    cards = list(ALL_CARDS[:count])
    with pytest.raises(CardError, match=f"needs 5 to 8 cards, got {count}"):
        function(cards)


def test_best_hands_refuse_a_duplicate_card() -> None:
    cards = parse_cards("Ac Kd Qh Js")
    cards.append(cards[0])
    with pytest.raises(DuplicateCardError, match="'Ac' appears twice"):
        best_high(cards)
    with pytest.raises(DuplicateCardError):
        best_low(cards)


def test_values_of_a_running_key_equal_the_values_of_the_cards() -> None:
    for cards in random_hands(3000, 7, seed=7) + random_hands(500, 8, seed=8):
        key = 0
        for card in cards:
            key += card.key
        assert high_value_of_key(key=key, cards=cards) == high_value(cards)
        assert low_value_of_key(key) == low_value(cards)


def test_accepts_any_sequence_of_cards() -> None:
    cards = parse_cards("Ac Kd Qh Js Tc 2d")
    assert high_value(tuple(cards)) == high_value(cards)
    assert low_value(tuple(cards)) == low_value(cards)
    assert best_high(tuple(cards)) == best_high(cards)


def test_doctests() -> None:
    result = doctest.testmod(engine.evaluate)
    assert result.attempted > 20 and result.failed == 0


# ---------------------------------------------------------------------------------
# Against an independent brute force (all 5-card subsets)


@pytest.mark.parametrize(("size", "count"), [(5, 5000), (6, 4000), (7, 3000), (8, 1500)])
def test_against_brute_force(size: int, count: int) -> None:
    hands = random_hands(count, size, seed=size)
    pairs = [(high_value(cards), as_int(ref_high(cards))) for cards in hands]
    assert_same_order(pairs, higher_is_better=True)
    for cards in hands:
        assert our_low_ranks(low_value(cards)) == ref_low(cards), cards_str(cards)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=5, max_size=8, unique=True), st.randoms())
def test_properties(cards: list[Card], rng: random.Random) -> None:
    value, low = high_value(cards), low_value(cards)
    shuffled = list(cards)
    rng.shuffle(shuffled)
    assert (high_value(shuffled), low_value(shuffled)) == (value, low)
    assert category_of(value) == ref_high(cards)[0]
    assert our_low_ranks(low) == ref_low(cards)
    if len(cards) > 5:  # the best of n cards is the best of its (n-1)-card subsets
        assert value == max(high_value(sub) for sub in combinations(cards, len(cards) - 1))
    hand = best_high(cards)
    assert set(hand.cards) <= set(cards) and len(hand.cards) == 5
    assert high_value(hand.cards) == value
    low_hand = best_low(cards)
    assert (low_hand is None) == (low is None)
    if low_hand is not None:
        assert set(low_hand.cards) <= set(cards) and low_value(low_hand.cards) == low


# ---------------------------------------------------------------------------------
# Against phevaluator and PokerKit on 100,000 random 7-card hands


@pytest.fixture(scope="module")
def seven_card_hands() -> list[list[Card]]:
    return random_hands(CROSS_CHECK_HANDS, 7, seed=2024)


@pytest.mark.slow
def test_high_against_phevaluator_100k(seven_card_hands: list[list[Card]]) -> None:
    # phevaluator's card id is (rank - 2) * 4 + suit (clubs, diamonds, hearts,
    # spades), our Card.index; its rank is 1 for a royal flush: lower is better.
    pairs = [(high_value(cards), evaluate_cards(*[c.index for c in cards])) for cards in seven_card_hands]
    assert_same_order(pairs, higher_is_better=False)


def test_high_against_phevaluator_5_6_8_cards() -> None:
    for size in (5, 6):
        pairs = [
            (high_value(cards), evaluate_cards(*[c.index for c in cards]))
            for cards in random_hands(5000, size, seed=100 + size)
        ]
        assert_same_order(pairs, higher_is_better=False)
    # phevaluator takes at most 7 cards: the best of eight is the best 7-card subset
    pairs = [
        (high_value(cards), min(evaluate_cards(*[c.index for c in sub]) for sub in combinations(cards, 7)))
        for cards in random_hands(3000, 8, seed=108)
    ]
    assert_same_order(pairs, higher_is_better=False)


def _pk_text(cards: Iterable[Card]) -> str:
    return "".join(map(str, cards))


def _pk_low_rank(card: object) -> int:
    char = repr(card)[0]  # PokerKit cards print as 'Ah', '2c'
    return 1 if char == "A" else int(char)


@pytest.mark.slow
def test_low_against_pokerkit_100k(seven_card_hands: list[list[Card]]) -> None:
    memo: dict[tuple[int, ...], tuple[tuple[int, ...] | None, int | None]] = {}
    pairs = []
    for cards in seven_card_hands:
        ranks = tuple(sorted(c.rank for c in cards))
        if ranks not in memo:
            pk = EightOrBetterLowHand.from_game_or_none(_pk_text(cards[:3]), _pk_text(cards[3:]))
            if pk is None:
                memo[ranks] = (None, None)
            else:
                used = tuple(sorted(map(_pk_low_rank, pk.cards), reverse=True))
                memo[ranks] = (used, pk.entry.index)
        pk_ranks, pk_index = memo[ranks]
        ours = low_value(cards)
        assert our_low_ranks(ours) == pk_ranks, cards_str(cards)
        if ours is not None:
            assert pk_index is not None
            pairs.append((ours, pk_index))
    # PokerKit's lower index is the better low
    assert assert_same_order(pairs, higher_is_better=False) == 56  # every 5 of A-8 seen


def test_high_against_pokerkit(seven_card_hands: list[list[Card]]) -> None:
    pairs = []
    for cards in seven_card_hands[:POKERKIT_HIGH_HANDS]:
        pk = StandardHighHand.from_game(_pk_text(cards[:3]), _pk_text(cards[3:]))
        value = high_value(cards)
        assert category_of(value).name == pk.entry.label.name, cards_str(cards)
        pairs.append((value, pk.entry.index))
    assert_same_order(pairs, higher_is_better=True)


def test_best_high_cards_against_pokerkit(seven_card_hands: list[list[Card]]) -> None:
    # the five cards best_high names make a hand PokerKit values as its best
    for cards in seven_card_hands[:1000]:
        ours = best_high(cards)
        best = StandardHighHand.from_game(_pk_text(cards))
        assert StandardHighHand(_pk_text(ours.cards)) == best, cards_str(cards)


def test_value_ranks_are_the_ranks_of_the_cards_best_high_picks() -> None:
    """A hand's name is made from its value alone (bot/text/handnames.py): the ranks must be those of its cards."""
    rng = random.Random(14)
    for _ in range(20_000):
        cards = rng.sample(list(ALL_CARDS), rng.choice((5, 6, 7)))
        assert value_ranks(high_value(cards)) == [c.rank for c in best_high(cards).cards], cards
