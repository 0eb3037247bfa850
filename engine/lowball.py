"""The ace-to-five low of Razz (GAMES.md G7) and the razz board order of G4.

A razz low is the best five of a player's cards read as a high hand backwards: aces
are low, straights and flushes do not count, any five different ranks beat any hand
with a pair, one pair beats two pair, which beats three of a kind, then a full house,
then four of a kind; within a kind the lower hand is better, compared as a high hand
is (the pair first, then the kickers from the highest down).

A **razz value** is an int, higher is better, like every value of :mod:`engine.evaluate`;
it is at least :data:`RAZZ_BASE`, so that it never equals an eight-or-better low value
(below 256) and a renderer can tell which low it holds. As the other evaluators, the
fast function reads the sum of the cards' keys and memoises by the rank multiset.

>>> from engine.cards import parse_cards
>>> best_razz(parse_cards("9c 7d 4h 2s Ac Kd Kh")).name
'9-7-4-2-A'
>>> razz_value(parse_cards("Kc Qd Jh Ts 9c")) > razz_value(parse_cards("2c 2d 3h 4s 5c"))
True
>>> razz_value(parse_cards("2c 2d Kh Qs Jc")) > razz_value(parse_cards("3c 3d 4h 5s 6c"))
True
>>> razz_value(parse_cards("4c 4d 3h 3s Kc")) > razz_value(parse_cards("5c 5d 2h 2s Ac"))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.cards import RANK_MASK, Card, check_distinct
from engine.errors import CardError
from engine.evaluate import HandCategory
from engine.order import memoised_by_ranks

RAZZ_BASE: Final = 1 << 24
"""Every razz value is at least this (an eight-or-better low value is below 256)."""

_CODE_TOP: Final = 1 << 23
_PATTERNS: Final[dict[tuple[int, ...], HandCategory]] = {
    (1, 1, 1, 1, 1): HandCategory.HIGH_CARD,
    (2, 1, 1, 1): HandCategory.ONE_PAIR,
    (2, 2, 1): HandCategory.TWO_PAIR,
    (3, 1, 1): HandCategory.THREE_OF_A_KIND,
    (3, 2): HandCategory.FULL_HOUSE,
    (4, 1): HandCategory.FOUR_OF_A_KIND,
}
_RAZZ: Final[dict[int, int]] = {}  # rank part of a key -> razz value
_NAMES: Final = {1: "A", 10: "10", 11: "J", 12: "Q", 13: "K"}
_WORDS: Final = {
    1: ("ace", "aces"), 2: ("two", "twos"), 3: ("three", "threes"), 4: ("four", "fours"), 5: ("five", "fives"),
    6: ("six", "sixes"), 7: ("seven", "sevens"), 8: ("eight", "eights"), 9: ("nine", "nines"),
    10: ("ten", "tens"), 11: ("jack", "jacks"), 12: ("queen", "queens"), 13: ("king", "kings"),
}


def _reading(ranks: Sequence[int]) -> tuple[HandCategory, list[int]]:
    """The category and reading order (biggest group first, then by rank, high to low) of
    five low ranks (ace = 1)."""
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    category = _PATTERNS[tuple(c for _, c in groups)]
    return category, [r for r, c in groups for _ in range(c)]


def _code(ranks: Sequence[int]) -> int:
    """Smaller is a better low: the high-hand code of five low ranks, straights and flushes ignored."""
    category, order = _reading(ranks)
    code = int(category)
    for rank in order:
        code = code << 4 | rank
    return code


def _ranks_of_key(rank_key: int) -> list[int]:
    """The low ranks (ace = 1) of a key's rank part, one entry per card."""
    ranks: list[int] = []
    for rank in range(2, 15):
        rank_key, count = divmod(rank_key, 5)
        ranks.extend([1 if rank == 14 else rank] * count)
    return ranks


def _razz_miss(rank_key: int) -> int:
    ranks = _ranks_of_key(rank_key)
    if len(ranks) < 5:
        raise CardError(f"a razz low needs 5 cards, the key holds {len(ranks)}")
    distinct = sorted(set(ranks))
    if len(distinct) >= 5:
        # Five different ranks beat any pair: the five lowest, read from the highest down.
        best = int(HandCategory.HIGH_CARD)
        for rank in reversed(distinct[:5]):
            best = best << 4 | rank
    else:
        best = min(_code(five) for five in set(combinations(sorted(ranks), 5)))
    value = _RAZZ[rank_key] = RAZZ_BASE + _CODE_TOP - best
    return value


def razz_value_of_key(key: int) -> int:
    """:func:`razz_value` from ``key``, the sum of 5 to 8 cards' keys (unchecked).

    >>> from engine.cards import parse_cards
    >>> cards = parse_cards("8d 6s 4h 3c Ad Kc Ks")
    >>> razz_value_of_key(sum(c.key for c in cards)) == razz_value(cards)
    True
    """
    key &= RANK_MASK
    try:
        return _RAZZ[key]
    except KeyError:
        return _razz_miss(key)


def razz_value(cards: Sequence[Card]) -> int:
    """The value of the best ace-to-five low among 5 to 8 distinct cards (G7); higher is better.

    >>> from engine.cards import parse_cards
    >>> razz_value(parse_cards("5s 4s 3s 2s As")) == razz_value(parse_cards("5c 4d 3h 2s Ad"))
    True
    """
    if not 4 < len(cards) < 9:
        shown = " ".join(map(str, cards)) or "no cards"
        raise CardError(f"a razz low needs 5 to 8 cards, got {len(cards)}: {shown}")
    key = 0
    for card in cards:
        key += card.key
    key &= RANK_MASK  # the lookup of razz_value_of_key, inlined: this is the evaluator's hot path
    try:
        return _RAZZ[key]
    except KeyError:
        return _razz_miss(key)


def is_razz_value(value: int | None) -> bool:
    """True for a value of this module (not an eight-or-better low)."""
    return value is not None and value >= RAZZ_BASE


def razz_ranks(value: int) -> list[int]:
    """The five low ranks of a razz value in reading order (ace = 1): ``[9, 7, 4, 2, 1]``."""
    code = _CODE_TOP - (value - RAZZ_BASE)
    return [(code >> shift) & 15 for shift in (16, 12, 8, 4, 0)]


def razz_category(value: int) -> HandCategory:
    return HandCategory((_CODE_TOP - (value - RAZZ_BASE)) >> 20)


def razz_name(value: int) -> str:
    """The English name of a razz value: ``'9-7-4-2-A'`` for five different ranks, else the kind.

    >>> from engine.cards import parse_cards
    >>> razz_name(razz_value(parse_cards("2c 2d Kh Qs Jc")))
    'pair of twos, K-Q-J'
    >>> razz_name(razz_value(parse_cards("5c 4d 3h 2s Ac")))
    '5-4-3-2-A'
    """
    ranks = razz_ranks(value)
    category = razz_category(value)
    text = [_NAMES.get(r, str(r)) for r in ranks]
    if category is HandCategory.HIGH_CARD:
        return "-".join(text)
    first = _WORDS[ranks[0]][1]
    if category is HandCategory.ONE_PAIR:
        return f"pair of {first}, {'-'.join(text[2:])}"
    if category is HandCategory.TWO_PAIR:
        return f"two pair, {first} and {_WORDS[ranks[2]][1]}, {text[4]}"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"three {first}, {'-'.join(text[3:])}"
    if category is HandCategory.FULL_HOUSE:
        return f"full house, {first} full of {_WORDS[ranks[3]][1]}"
    return f"four {first}, {text[4]}"


@dataclass(frozen=True, slots=True)
class RazzHand:
    """The best razz low: its value, the five cards used in reading order and its name."""

    value: int
    cards: tuple[Card, ...]
    name: str


def best_razz(cards: Sequence[Card]) -> RazzHand:
    """The best ace-to-five low of 5 to 8 distinct cards, with the five cards it uses.

    >>> from engine.cards import parse_cards
    >>> low = best_razz(parse_cards("Kd 2c 2h 9s 7d 4c Ah"))
    >>> low.name, " ".join(map(str, low.cards))
    ('9-7-4-2-A', '9s 7d 4c 2c Ah')
    """
    pool = list(cards)
    check_distinct(pool)
    value = razz_value(pool)
    used: list[Card] = []
    for rank in razz_ranks(value):
        card = min((c for c in pool if c.low_rank == rank), key=lambda c: c.suit)
        pool.remove(card)
        used.append(card)
    return RazzHand(value=value, cards=tuple(used), name=razz_name(value))


RazzBoardKey = tuple[tuple[int, ...], tuple[int, ...]]

_RAZZ_BOARDS: Final[dict[int, RazzBoardKey]] = {}
"""The rank part of up to four cards' keys -> their razz board key (as engine.order's ``_BOARD_KEYS``)."""


def razz_board_key(up_cards: Sequence[Card]) -> RazzBoardKey:
    """G4: the strength of a razz board for acting first; **bigger acts first** (the lowest board).

    A board without a pair beats any board with one; unpaired boards compare from their
    highest card down, aces low; paired boards as G7 does. Suits never count. Memoised by
    the rank multiset of up to four cards (a stud board).

    >>> from engine.cards import parse_cards
    >>> razz_board_key(parse_cards("8c 4d 2h")) > razz_board_key(parse_cards("8s 5d Ah"))
    True
    >>> razz_board_key(parse_cards("7c 6d 5h")) > razz_board_key(parse_cards("8s 2d Ah"))
    True
    >>> razz_board_key(parse_cards("Kc Qd Jh")) > razz_board_key(parse_cards("2s 2d 3h"))
    True
    """
    return memoised_by_ranks(up_cards, memo=_RAZZ_BOARDS, compute=_razz_board_key)


def _razz_board_key(up_cards: Sequence[Card]) -> RazzBoardKey:
    counts: dict[int, int] = {}
    for card in up_cards:
        counts[card.low_rank] = counts.get(card.low_rank, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return (tuple(-c for _, c in groups), tuple(-r for r, _ in groups))


def razz_bring_in_key(card: Card) -> tuple[int, int]:
    """G2: the **highest** door card brings in (aces low; equal ranks: spades first); the
    smallest key brings in, as rule 4's key.

    >>> from engine.cards import parse_cards
    >>> [str(c) for c in sorted(parse_cards("Qc Qh Ks As"), key=razz_bring_in_key)]
    ['Ks', 'Qh', 'Qc', 'As']
    """
    return (-card.low_rank, -card.suit)
