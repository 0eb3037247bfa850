"""Hand names as a player of each language says them, from the engine's hands.

The engine names hands in English for hand files and logs; what players read
comes from here, through the catalogs (``hands.po``): the category's phrase
with the ranks in the grammatical form it needs.

>>> from engine import best_high, best_low, parse_cards
>>> from bot.i18n import translator
>>> full = best_high(parse_cards("3c Qs 3d Qh 9s Qd 2h"))
>>> [high_name(translator(lang), full) for lang in ("en", "ru", "pl")]
['full house, queens full of threes', 'фулл-хаус из дам и троек', 'full, damy na trójkach']
>>> flush = best_high(parse_cards("Ah 9h 7h 4h 2h Kc"))
>>> [high_name(translator(lang), flush) for lang in ("en", "ru", "pl")]
['flush, ace high', 'флеш до туза', 'kolor do asa']
>>> low = best_low(parse_cards("8c 6d 3h 2s Ac Kd Kc"))
>>> [low_name(translator(lang), low) for lang in ("en", "ru", "pl")]
['8-6-3-2-A low', '8-6-3-2-A', '8-6-3-2-A']
>>> strength(translator("ru"), parse_cards("Kc Kd 4h"))
'Хай: пара королей · Лоу: 1 карта к лоу (4)'
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Card, HighHand, LowHand, best_high, best_low
from engine.evaluate import HandCategory
from engine.order import board_key

from .i18n import Translator, family

RANKS = range(2, 15)
_FORMS = {form: family(f"rank.{form}", RANKS) for form in ("one", "many", "of", "to", "on")}
_KEYS = family("hand", ("high_card", "pair", "two_pair", "three", "straight", "flush", "full_house", "quads",
                        "straight_flush"))
_CATEGORY = {category: _KEYS[name] for category, name in zip(HandCategory, _KEYS, strict=True)}
"""Each category's key, weakest first (the order of :class:`HandCategory`)."""


def _forms(tr: Translator, rank: int, suffix: str = "") -> dict[str, str]:
    """Every grammatical form of ``rank``: {"one": ..., "many": ..., ...} (keys + ``suffix``)."""
    return {form + suffix: tr(keys[str(rank)]) for form, keys in _FORMS.items()}


def _named(tr: Translator, key: str, first: int, second: int | None = None) -> str:
    fields = _forms(tr, first)
    if second is not None:
        fields |= _forms(tr, second, "2")
    return tr(key, **fields)


def high_name(tr: Translator, high: HighHand) -> str:
    """The name of a five-card high hand (its cards come in reading order)."""
    ranks = [c.rank for c in high.cards]
    if high.category is HandCategory.STRAIGHT_FLUSH and ranks[0] == 14:
        return tr("hand.royal_flush")
    second = {HandCategory.FULL_HOUSE: ranks[3], HandCategory.TWO_PAIR: ranks[2]}.get(high.category)
    return _named(tr, _CATEGORY[high.category], ranks[0], second)


def low_ranks(ranks: Sequence[int]) -> str:
    """'8-6-3-2-A' (ranks highest first, the ace as 1)."""
    return "-".join("A" if r == 1 else str(r) for r in ranks)


def low_cards(tr: Translator, low: LowHand) -> str:
    """The low's ranks, '8-6-3-2-A', or the wheel's name."""
    ranks = [c.low_rank for c in low.cards]
    return tr("low.wheel") if ranks == [5, 4, 3, 2, 1] else low_ranks(ranks)


def low_name(tr: Translator, low: LowHand) -> str:
    """The low as the strength line says it after 'Low:': '8-6-3-2-A low' in English, the ranks
    alone where the label already says it ('Лоу: 8-6-3-2-A'); the wheel by its name."""
    ranks = [c.low_rank for c in low.cards]
    return tr("low.wheel") if ranks == [5, 4, 3, 2, 1] else tr("low.name", ranks=low_ranks(ranks))


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


def strength(tr: Translator, cards: Sequence[Card]) -> str:
    """'High: two pair, queens and tens · Low: 8-6-3-2-A low' (or the draw so far)."""
    low_draw = sorted({c.low_rank for c in cards if c.low_rank <= 8}, reverse=True)
    draw = tr.n("low.draw", len(low_draw), ranks=low_ranks(low_draw)) if low_draw else tr("low.no_cards")
    if len(cards) >= 5:
        high = high_name(tr, best_high(cards))
        low = best_low(cards)
        low_text = low_name(tr, low) if low else (draw if len(cards) < 7 else tr("low.none"))
    else:
        high = partial_high(tr, cards)
        low_text = draw
    return tr("strength.line", high=high, low=low_text)
