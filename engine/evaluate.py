"""Hand evaluation: the best high hand (rule 16) and the eight-or-better low (rule 17).

Values are plain ints, so hands compare with ``<`` and ``==``:

* a **high value** is ``category << 20`` plus the five ranks of the hand in the
  order a player reads them (the trips before the pair, kickers high to low), four
  bits each; the ace of a wheel (5-4-3-2-A) counts as 1. Higher is better, equal is
  a tie.
* a **low value** is ``255 - mask``, where bit ``r - 1`` of ``mask`` is set for each of
  the five low ranks used (ace = 1 .. eight = 8). Higher is better; ``None`` means
  no qualifying low.

The fast functions work on the sum of the cards' ``key`` (see :mod:`engine.cards`):
its rank part identifies the rank multiset, its suit part the suit counts. Everything
but a flush depends on the rank multiset alone, so values are memoised in dicts keyed
by it, filled on first use (at most about 150,000 entries each for hands of 5 to 8
cards). The game may keep a running key per player and call
:func:`high_value_of_key` / :func:`low_value_of_key`.

>>> from engine.cards import parse_cards
>>> hand = parse_cards("Qs Qh Qd 3c 3s 8h 2d")
>>> best_high(hand).name
'full house, queens full of threes'
>>> best_low(hand) is None
True
>>> best_low(parse_cards("8d 6s 4h 3c Ad Kc Ks")).name
'8-6-4-3-A low'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine.cards import RANK_MASK, RANK_NAMES, RANK_PLURALS, SUIT_SHIFT, Card, check_distinct
from engine.errors import CardError

__all__ = [
    "HandCategory",
    "HighHand",
    "LowHand",
    "best_high",
    "best_low",
    "category_of",
    "high_name",
    "high_value",
    "high_value_of_key",
    "low_name",
    "low_value",
    "low_value_of_key",
    "value_ranks",
]


class HandCategory(IntEnum):
    """The nine kinds of high hand, weakest first."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


_CATEGORY_SHIFT: Final = 20
_WHEEL_LOW_MASK: Final = 0b11111
# The hot paths below use these numbers as literals (they must agree with cards.py):
assert SUIT_SHIFT == 32 and RANK_MASK == 0xFFFFFFFF
# ((key >> 32) + 0x3333) & 0x8888 is non-zero iff a 4-bit suit counter is 5 or more:
# 5 + 3 = 8 sets the counter's top bit, and with at most 8 cards no counter overflows.

_HIGH: Final[dict[int, int]] = {}  # rank part of a key -> high value, ignoring flushes
_LOW: Final[dict[int, int | None]] = {}  # rank part of a key -> low value or None
_FLUSH: Final[dict[int, int]] = {}  # bit r set for each rank r of the flush suit -> value


# ---------------------------------------------------------------------------------
# Hot path


def high_value(cards: Sequence[Card]) -> int:
    """The value of the best five-card high hand among 5 to 8 distinct cards.

    Higher is better, equal values are equal hands (suits never break ties).

    >>> from engine.cards import parse_cards
    >>> wheel = high_value(parse_cards("5c 4d 3h 2s Ac Kd"))
    >>> six_high = high_value(parse_cards("6c 5d 4h 3s 2c"))
    >>> trips = high_value(parse_cards("Ac Ad Ah Ks Qs"))
    >>> trips < wheel < six_high
    True
    >>> high_value(parse_cards("Ac Kd"))
    Traceback (most recent call last):
    ...
    engine.errors.CardError: a high hand needs 5 to 8 cards, got 2: Ac Kd
    """
    if not 4 < len(cards) < 9:
        raise _count_error("a high hand", cards)
    key = 0
    for card in cards:  # faster than sum() of a list or a map in CPython 3.11
        key += card.key
    if ((key >> 32) + 0x3333) & 0x8888:
        return _flush_high(key, cards)
    key &= 0xFFFFFFFF
    try:
        return _HIGH[key]
    except KeyError:
        return _high_miss(key)


def low_value(cards: Sequence[Card]) -> int | None:
    """The value of the best eight-or-better low among 5 to 8 distinct cards, or None.

    Higher is better; ``None`` when the cards hold fewer than five different ranks
    of eight or lower (ace = 1). Straights and flushes do not matter.

    >>> from engine.cards import parse_cards
    >>> low_value(parse_cards("7c 5d 4h 3s 2c")) > low_value(parse_cards("8c 4d 3h 2s Ac"))
    True
    >>> low_value(parse_cards("5s 4s 3s 2s As"))  # a steel wheel is still the wheel
    224
    >>> print(low_value(parse_cards("9c 5d 4h 3s 2c Kd 2d")))
    None
    """
    if not 4 < len(cards) < 9:
        raise _count_error("a low hand", cards)
    key = 0
    for card in cards:
        key += card.key
    key &= 0xFFFFFFFF
    try:
        return _LOW[key]
    except KeyError:
        return _low_miss(key)


def high_value_of_key(*, key: int, cards: Sequence[Card]) -> int:
    """:func:`high_value` from ``key``, the sum of the cards' keys, kept by the caller.

    ``cards`` is read only when the key shows a flush. No check is made that the
    key matches the cards or that there are 5 to 8 of them.

    >>> from engine.cards import parse_cards
    >>> cards = parse_cards("9h 8h 7h 6h 5h Kc")
    >>> high_value_of_key(key=sum(c.key for c in cards), cards=cards) == high_value(cards)
    True
    """
    if ((key >> 32) + 0x3333) & 0x8888:
        return _flush_high(key, cards)
    key &= 0xFFFFFFFF
    try:
        return _HIGH[key]
    except KeyError:
        return _high_miss(key)


def low_value_of_key(key: int) -> int | None:
    """:func:`low_value` from ``key``, the sum of the cards' keys.

    >>> from engine.cards import parse_cards
    >>> cards = parse_cards("8d 6s 4h 3c Ad Kc Ks")
    >>> low_value_of_key(sum(c.key for c in cards)) == low_value(cards)
    True
    """
    key &= 0xFFFFFFFF
    try:
        return _LOW[key]
    except KeyError:
        return _low_miss(key)


def _flush_high(key: int, cards: Sequence[Card]) -> int:
    # Which counter reached 5 (with at most 8 cards only one can): its bit 3 is set.
    suit = (((key >> 32) + 0x3333) & 0x8888).bit_length() // 4 - 1
    mask = 0
    for card in cards:
        if card.suit == suit:
            mask |= 1 << card.rank
    try:
        flush = _FLUSH[mask]
    except KeyError:
        flush = _FLUSH[mask] = _flush_value(mask)
    if flush >> _CATEGORY_SHIFT == HandCategory.STRAIGHT_FLUSH:
        return flush
    # With 8 cards a flush can sit beside a full house or four of a kind.
    rank_key = key & 0xFFFFFFFF
    try:
        other = _HIGH[rank_key]
    except KeyError:
        other = _high_miss(rank_key)
    return flush if flush > other else other


def _count_error(what: str, cards: Sequence[Card]) -> CardError:
    shown = " ".join(map(str, cards)) or "no cards"
    return CardError(f"{what} needs 5 to 8 cards, got {len(cards)}: {shown}")


# ---------------------------------------------------------------------------------
# Memo misses: compute from the rank counts


def _encode(category: HandCategory, ranks: Sequence[int]) -> int:
    value = int(category)
    for rank in ranks:
        value = value << 4 | rank
    return value


def _rank_groups(rank_key: int) -> tuple[list[list[int]], int]:
    """The ranks of a key's rank part by count (``groups[c]``: the ranks held c times,
    highest first) and the set of ranks present (bit r = rank r)."""
    groups: list[list[int]] = [[], [], [], [], []]
    bits = 0
    for rank in range(2, 15):
        rank_key, count = divmod(rank_key, 5)
        if count:
            groups[count].insert(0, rank)
            bits |= 1 << rank
    return groups, bits


def _straight_top(rank_bits: int) -> int:
    """The top rank of the best straight in a set of ranks (bit r = rank r), or 0."""
    rank_bits |= rank_bits >> 13 & 0b10  # the ace (bit 14) also plays as one (bit 1)
    runs = rank_bits & rank_bits >> 1 & rank_bits >> 2 & rank_bits >> 3 & rank_bits >> 4
    return runs.bit_length() + 3 if runs else 0  # bit i of runs: ranks i..i+4 present


def _compute_high(rank_key: int) -> int:
    """The high value of a rank multiset, flushes aside."""
    groups, bits = _rank_groups(rank_key)
    _, singles, pairs, trips, quads = groups
    if len(singles) + 2 * len(pairs) + 3 * len(trips) + 4 * len(quads) < 5:
        raise CardError(f"a rank key of fewer than 5 cards: {rank_key}")
    if quads:
        quad = quads[0]
        kicker = (bits & ~(1 << quad)).bit_length() - 1  # the highest other rank
        return _encode(HandCategory.FOUR_OF_A_KIND, (quad, quad, quad, quad, kicker))
    if trips and (len(trips) > 1 or pairs):
        trip = trips[0]
        pair = max(trips[1:] + pairs)
        return _encode(HandCategory.FULL_HOUSE, (trip, trip, trip, pair, pair))
    top = _straight_top(bits)
    if top:
        return _encode(HandCategory.STRAIGHT, _straight_ranks(top))
    if trips:  # and no pair: the rest are single
        trip = trips[0]
        return _encode(HandCategory.THREE_OF_A_KIND, [trip, trip, trip, *singles[:2]])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        kicker = (bits & ~(1 << high | 1 << low)).bit_length() - 1  # maybe a third pair
        return _encode(HandCategory.TWO_PAIR, (high, high, low, low, kicker))
    if pairs:
        pair = pairs[0]
        return _encode(HandCategory.ONE_PAIR, [pair, pair, *singles[:3]])
    return _encode(HandCategory.HIGH_CARD, singles[:5])


def _straight_ranks(top: int) -> tuple[int, ...]:
    return tuple(range(top, top - 5, -1))  # the wheel: 5, 4, 3, 2, 1


def _flush_value(rank_bits: int) -> int:
    """The value of the cards of one suit (bit r = rank r, at least five of them)."""
    top = _straight_top(rank_bits)
    if top:
        return _encode(HandCategory.STRAIGHT_FLUSH, _straight_ranks(top))
    ranks = [r for r in range(14, 1, -1) if rank_bits >> r & 1][:5]
    return _encode(HandCategory.FLUSH, ranks)


def _compute_low_mask(rank_key: int) -> int | None:
    """The mask of the five lowest distinct low ranks (bit 0 = ace .. bit 7 = eight)."""
    mask = used = 0
    if rank_key // 5**12:  # the ace's count is the top base-5 digit
        mask, used = 1, 1
    for bit in range(1, 8):  # ranks 2..8 are the digits 0..6
        rank_key, count = divmod(rank_key, 5)
        if count:
            mask |= 1 << bit
            used += 1
            if used == 5:
                return mask
    return None


def _high_miss(rank_key: int) -> int:
    value = _HIGH[rank_key] = _compute_high(rank_key)
    return value


def _low_miss(rank_key: int) -> int | None:
    mask = _compute_low_mask(rank_key)
    value = _LOW[rank_key] = None if mask is None else 255 - mask
    return value


# ---------------------------------------------------------------------------------
# Categories, names and the cards used


def category_of(value: int) -> HandCategory:
    """The category of a high value.

    >>> from engine.cards import parse_cards
    >>> category_of(high_value(parse_cards("Ac Ad 8h 8s 2c")))
    <HandCategory.TWO_PAIR: 2>
    """
    return HandCategory(value >> _CATEGORY_SHIFT)


def _value_ranks(value: int) -> list[int]:
    """The five ranks of a high value in reading order (a wheel's ace as 1)."""
    return [(value >> shift) & 15 for shift in (16, 12, 8, 4, 0)]


def value_ranks(value: int) -> list[int]:
    """The ranks of the five cards of a high value in reading order, as :func:`best_high` picks
    them (an ace is 14, also in a wheel's 5-4-3-2-A): a name needs no cards, only the value.

    >>> from engine.cards import parse_cards
    >>> value_ranks(high_value(parse_cards("3c Qs 3d Qh 9s Qd 2h")))
    [12, 12, 12, 3, 3]
    >>> value_ranks(high_value(parse_cards("Ah 2c 3d 4s 5h Kd Kc")))
    [5, 4, 3, 2, 14]
    """
    return [14 if rank == 1 else rank for rank in _value_ranks(value)]


def high_name(value: int) -> str:
    """The English name of a high value, as a dealer would call it.

    >>> from engine.cards import parse_cards
    >>> high_name(high_value(parse_cards("Kc Kd Kh Ks 2c")))
    'four of a kind, kings'
    >>> high_name(high_value(parse_cards("5h 4h 3h 2h Ah")))
    'straight flush, five high'
    """
    category = category_of(value)
    ranks = _value_ranks(value)
    first, fourth = ranks[0], ranks[3]
    if category is HandCategory.STRAIGHT_FLUSH:
        return f"straight flush, {RANK_NAMES[first]} high"
    if category is HandCategory.FOUR_OF_A_KIND:
        return f"four of a kind, {RANK_PLURALS[first]}"
    if category is HandCategory.FULL_HOUSE:
        return f"full house, {RANK_PLURALS[first]} full of {RANK_PLURALS[fourth]}"
    if category is HandCategory.FLUSH:
        return f"flush, {RANK_NAMES[first]} high"
    if category is HandCategory.STRAIGHT:
        return f"straight, {RANK_NAMES[first]} high"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"three of a kind, {RANK_PLURALS[first]}"
    if category is HandCategory.TWO_PAIR:
        return f"two pair, {RANK_PLURALS[first]} and {RANK_PLURALS[ranks[2]]}"
    if category is HandCategory.ONE_PAIR:
        return f"pair of {RANK_PLURALS[first]}"
    return f"{RANK_NAMES[first]} high"


def _low_ranks(value: int) -> list[int]:
    """The five low ranks of a low value, highest first, the ace as 1."""
    mask = 255 - value
    return [bit + 1 for bit in range(7, -1, -1) if mask >> bit & 1]


def low_name(value: int) -> str:
    """The English name of a low value: ``'8-6-4-3-A low'``, or ``'wheel'``.

    >>> from engine.cards import parse_cards
    >>> low_name(low_value(parse_cards("8c 6d 4h 3s Ac")) or 0)
    '8-6-4-3-A low'
    >>> low_name(low_value(parse_cards("5c 4d 3h 2s Ac")) or 0)
    'wheel'
    """
    if 255 - value == _WHEEL_LOW_MASK:
        return "wheel"
    return "-".join("A" if r == 1 else str(r) for r in _low_ranks(value)) + " low"


@dataclass(frozen=True, slots=True)
class HighHand:
    """The best high hand: its value, category, the five cards used and its name."""

    value: int
    category: HandCategory
    cards: tuple[Card, ...]
    name: str


@dataclass(frozen=True, slots=True)
class LowHand:
    """The best eight-or-better low: its value, the five cards used (highest first,
    ace last) and its name."""

    value: int
    cards: tuple[Card, ...]
    name: str


def _checked(what: str, cards: Sequence[Card]) -> list[Card]:
    if not 4 < len(cards) < 9:
        raise _count_error(what, cards)
    check_distinct(cards)
    return list(cards)


def best_high(cards: Sequence[Card]) -> HighHand:
    """The best high hand of 5 to 8 distinct cards, with the five cards it uses.

    The cards come in reading order: the set before the pair, kickers high to low,
    a wheel as 5-4-3-2-A. Among cards of equal rank the higher suit is used.

    >>> from engine.cards import parse_cards
    >>> hand = best_high(parse_cards("3c Qs 3d Qh 9s Qd 2h"))
    >>> hand.name, " ".join(map(str, hand.cards))
    ('full house, queens full of threes', 'Qs Qh Qd 3d 3c')
    >>> hand.category
    <HandCategory.FULL_HOUSE: 6>
    >>> best_high(parse_cards("Ah 2c 3d 4s 5h Kd Kc")).name
    'straight, five high'
    """
    pool = _checked("a high hand", cards)
    value = high_value(pool)
    category = category_of(value)
    if category in (HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH):
        key = sum(c.key for c in pool)
        suit = (((key >> 32) + 0x3333) & 0x8888).bit_length() // 4 - 1
        pool = [c for c in pool if c.suit == suit]
    pool.sort(reverse=True)
    used: list[Card] = []
    for rank in _value_ranks(value):
        rank = 14 if rank == 1 else rank
        card = next(c for c in pool if c.rank == rank)
        pool.remove(card)
        used.append(card)
    return HighHand(value=value, category=category, cards=tuple(used), name=high_name(value))


def best_low(cards: Sequence[Card]) -> LowHand | None:
    """The best eight-or-better low of 5 to 8 distinct cards, or None.

    The cards are given highest first, ace last; of several cards of a rank the
    lowest suit is used.

    >>> from engine.cards import parse_cards
    >>> low = best_low(parse_cards("Ah 2c 3d 4s 5h 2d Kc"))
    >>> low is not None and (low.name, " ".join(map(str, low.cards)))
    ('wheel', '5h 4s 3d 2c Ah')
    >>> print(best_low(parse_cards("Ah 2c 3d 4s 9h 2d Kc")))
    None
    """
    pool = _checked("a low hand", cards)
    value = low_value(pool)
    if value is None:
        return None
    used = []
    for rank in _low_ranks(value):
        used.append(min(c for c in pool if c.low_rank == rank))
    return LowHand(value=value, cards=tuple(used), name=low_name(value))
