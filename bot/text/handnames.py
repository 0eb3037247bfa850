"""Hand names as a player of each language says them, from the engine's hands.

The engine names hands in English for hand files and logs; what players read
comes from here, through the catalogs (``hands.po``): the category's phrase
with the ranks in the grammatical form it needs.

>>> from engine import best_high, best_low, parse_cards
>>> from bot.core.i18n import translator
>>> full = best_high(parse_cards("3c Qs 3d Qh 9s Qd 2h"))
>>> [high_name(translator(lang), full) for lang in ("en", "ru", "pl")]
['full house, queens full of threes', 'фулл-хаус из дам и троек', 'full, damy na trójkach']
>>> flush = best_high(parse_cards("Ah 9h 7h 4h 2h Kc"))
>>> [high_name(translator(lang), flush) for lang in ("en", "ru", "pl")]
['flush, ace high', 'флеш до туза', 'kolor do asa']
>>> low = best_low(parse_cards("8c 6d 3h 2s Ac Kd Kc"))
>>> [low_name(translator(lang), low) for lang in ("en", "ru", "pl")]
['8-6-3-2-A', '8-6-3-2-A', '8-6-3-2-A']
>>> for lang in ("en", "ru", "pl"):
...     print(strength(translator(lang), parse_cards("Kc 8d 4h 2s")))
High: king high · drawing to 8-4-2
Хай: старшая карта король · дро на лоу 8-4-2
High: wysoka karta król · ciągniesz do low 8-4-2
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from bot.core.i18n import Translator, family
from engine import ALL_CARDS, Card, HighHand, LowHand, best_low
from engine.cards import RANK_MASK, SUIT_SHIFT
from engine.evaluate import HandCategory, category_of, high_value_of_key, value_ranks
from engine.lowball import RazzHand
from engine.order import board_key

RANKS = range(2, 15)
_FORMS = {form: family(f"rank.{form}", RANKS) for form in ("one", "many", "of", "to", "on")}
_KEYS = family("hand", ("high_card", "pair", "two_pair", "three", "straight", "flush", "full_house", "quads",
                        "straight_flush"))
_CATEGORY = {category: _KEYS[name] for category, name in zip(HandCategory, _KEYS, strict=True)}
"""Each category's key, weakest first (the order of :class:`HandCategory`)."""


def _forms(tr: Translator, rank: int, suffix: str = "") -> dict[str, str]:
    """Every grammatical form of ``rank``: {"one": ..., "many": ..., ...} (keys + ``suffix``)."""
    return {form + suffix: tr(keys[str(rank)]) for form, keys in _FORMS.items()}


@lru_cache(maxsize=4096)
def _named(tr: Translator, key: str, first: int, second: int | None = None) -> str:
    """A hand's phrase with its ranks (a few thousand of them at most: remembered, since each
    card dealt names every receiving player's hand)."""
    fields = _forms(tr, first)
    if second is not None:
        fields |= _forms(tr, second, "2")
    return tr(key, **fields)


def high_name(tr: Translator, high: HighHand) -> str:
    """The name of a five-card high hand."""
    return _high_name(tr, high.value)


@lru_cache(maxsize=8192)
def _high_name(tr: Translator, value: int) -> str:
    """The name of a high value (a few thousand of them: remembered, since each card dealt names
    every receiving player's hand)."""
    category, ranks = category_of(value), value_ranks(value)
    if category is HandCategory.STRAIGHT_FLUSH and ranks[0] == 14:
        return tr("hand.royal_flush")
    second = {HandCategory.FULL_HOUSE: ranks[3], HandCategory.TWO_PAIR: ranks[2]}.get(category)
    return _named(tr, _CATEGORY[category], ranks[0], second)


_LOW_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}


def low_ranks(ranks: Sequence[int]) -> str:
    """'8-6-3-2-A' (ranks highest first, the ace as 1); a razz low's court cards as letters (G7).

    >>> low_ranks([11, 10, 9, 8, 4])
    'J-10-9-8-4'
    """
    return "-".join(_LOW_RANK_TEXT.get(r, str(r)) for r in ranks)


def low_name(tr: Translator, low: LowHand | RazzHand) -> str:
    """The low's ranks, '8-6-3-2-A', or the wheel's name (a razz low's five cards in reading order)."""
    ranks = [c.low_rank for c in low.cards]
    return tr("low.wheel") if ranks == [5, 4, 3, 2, 1] else low_ranks(ranks)


def partial_high(tr: Translator, cards: Sequence[Card]) -> str:
    """What fewer than five cards make so far: four or three of a rank, pairs, a high card."""
    groups, ranks = board_key(cards)
    top = ranks[0]
    if groups[0] == 4:
        return _named(tr, "partial.quads", top)
    if groups[0] == 3:
        return _named(tr, "partial.three", top)
    if groups[:2] == (2, 2):
        return _named(tr, "hand.two_pair", top, ranks[1])
    if groups[0] == 2:
        return _named(tr, "hand.pair", top)
    return _named(tr, "hand.high_card", top)


def low_status(tr: Translator, cards: Sequence[Card]) -> str:
    """Where a player's low stands, as a stud player says it: 'no low yet' below three low
    cards (eight or lower, distinct ranks, ace low), 'drawing to 8-5-3' (or 8-5-3-2) with
    three or four, 'Low: 7-5-4-3-A' once made, 'no low' when the cards to come (to seventh
    street) cannot make one.

    >>> from engine import parse_cards
    >>> from bot.core.i18n import EN
    >>> [low_status(EN, parse_cards(c)) for c in ("Ac 2d Kh", "Ac 8d 3h", "Ac 8d 3h 5s Kd", "Kc Qd Jh")]
    ['no low yet', 'drawing to 8-3-A', 'drawing to 8-5-3-A', 'no low']
    >>> [low_status(EN, parse_cards(c)) for c in ("Ac 2d Kh Kd Qc", "7c 5d 4h 3s Ac Kd", "2c 3d 4h 5s Ac")]
    ['no low', 'Low: 7-5-4-3-A', 'Low: wheel']
    """
    ranks = sorted({c.low_rank for c in cards if c.low_rank <= 8}, reverse=True)
    if len(ranks) >= 5:
        low = best_low(cards)
        assert low is not None  # five distinct ranks of eight or lower make a low
        return tr("low.made", low=low_name(tr, low))
    if len(ranks) + max(0, 7 - len(cards)) < 5:
        return tr("low.none")
    if len(ranks) < 3:
        return tr("low.not_yet")
    return tr("low.drawing", ranks=low_ranks(ranks))


def strength(tr: Translator, cards: Sequence[Card]) -> str:
    """'High: two pair, queens and tens · drawing to 8-5-3' (the high so far, then the low).

    Remembered by the cards' ranks (every card dealt names the hand of each player who gets
    it): the line depends on the ranks alone unless five cards share a suit, and those
    hands are named afresh. ``cards`` are one player's, distinct, as a hand deals them.
    """
    key = 0
    for card in cards:  # faster than sum() of a map in CPython 3.11
        key += card.key
    # The rank part of the keys' sum is the multiset of ranks (so also how many cards there
    # are): all that the high so far (pairs, straights, high cards) and the low depend on,
    # unless five of a suit (engine.evaluate's test) make a flush.
    remembered = None if ((key >> SUIT_SHIFT) + 0x3333) & 0x8888 else (tr, key & RANK_MASK)
    text = _STRENGTHS.get(remembered) if remembered else None
    if text is None:
        high = _high_name(tr, high_value_of_key(key=key, cards=cards)) if len(cards) >= 5 \
            else partial_high(tr, cards)
        text = tr("strength.line", high=high, low=_low_status(tr, cards))
        if remembered:
            if len(_STRENGTHS) >= _STRENGTHS_KEPT:
                _STRENGTHS.clear()  # a bound, seldom reached: 3 languages x the rank shapes players hold
            _STRENGTHS[remembered] = text
    return text


def _low_status(tr: Translator, cards: Sequence[Card]) -> str:
    """:func:`low_status`, remembered by what it depends on: the low ranks held (one bit each) and
    how many cards are still to come (a few thousand lines at most)."""
    held = 0
    for card in cards:
        held |= _LOW_BIT[card.index]
    remembered = (tr, held, max(0, 7 - len(cards)))
    text = _LOWS.get(remembered)
    if text is None:
        text = _LOWS[remembered] = low_status(tr, cards)
    return text


_STRENGTHS: dict[tuple[Translator, int], str] = {}
_STRENGTHS_KEPT = 50_000
_LOW_BIT: Final = tuple(1 << c.low_rank if c.low_rank <= 8 else 0 for c in sorted(ALL_CARDS, key=lambda c: c.index))
"""Each card's low rank as a bit (none above eight), by ``Card.index``."""
_LOWS: dict[tuple[Translator, int, int], str] = {}
