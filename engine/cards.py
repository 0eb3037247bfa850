"""Cards and decks.

A card is a frozen value object with a rank (2-14, ace high) and a suit
(0-3: clubs, diamonds, hearts, spades, the bring-in order of rule 4).

>>> Card.from_str("As")
Card.from_str('As')
>>> str(Card.from_str("Td")), Card.from_str("Td").pretty
('Td', '10♦')
>>> Card.from_str("7c") < Card.from_str("7d") < Card.from_str("8c")
True
>>> [str(c) for c in parse_cards("Ah 2c")]
['Ah', '2c']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from engine.errors import CardError, DeckError, DuplicateCardError

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"
SUIT_SYMBOLS: Final = "♣♦♥♠"
RANK_NAMES: Final = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS: Final = {r: ("sixes" if r == 6 else n + "s") for r, n in RANK_NAMES.items()}

# Evaluation keys. A card's key is the sum of a rank part (5 ** (rank - 2), so that
# the sum of up to eight cards' rank parts identifies their rank multiset, each rank
# appearing at most four times) and a suit part (one 4-bit counter per suit above
# bit 32). The sum of a hand's keys is therefore its rank multiset and its suit counts.
SUIT_SHIFT: Final = 32
RANK_MASK: Final = (1 << SUIT_SHIFT) - 1


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One playing card. Compare by rank, then suit (clubs lowest, spades highest)."""

    rank: int
    suit: int
    key: int = field(init=False, repr=False, compare=False, hash=False)
    index: int = field(init=False, repr=False, compare=False, hash=False)
    """0..51, ordered as the cards compare (2c = 0, As = 51)."""

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 2 <= self.rank <= 14):
            raise CardError(f"rank {self.rank!r} is not 2..14")
        if not (isinstance(self.suit, int) and 0 <= self.suit <= 3):
            raise CardError(f"suit {self.suit!r} is not 0..3 (c, d, h, s)")
        key = 5 ** (self.rank - 2) + (1 << (SUIT_SHIFT + 4 * self.suit))
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "index", (self.rank - 2) * 4 + self.suit)

    def __hash__(self) -> int:
        return self.index

    @classmethod
    def from_str(cls, text: str) -> Card:
        """Parse ``'As'``, ``'Td'``, ``'7c'`` (rank ``2-9TJQKA``, suit ``cdhs``).

        >>> Card.from_str("Qh").rank
        12
        >>> Card.from_str("1x")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        engine.errors.CardError: malformed card '1x': expected a rank from 23456789TJQKA and a suit ...
        """
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise CardError(
                f"malformed card {text!r}: expected a rank from {RANK_CHARS} and a suit "
                f"from {SUIT_CHARS}, like 'As' or 'Td'"
            )
        return card

    @property
    def low_rank(self) -> int:
        """Rank for low hands and the low odd-chip order: the ace counts as one."""
        return 1 if self.rank == 14 else self.rank

    @property
    def pretty(self) -> str:
        """Rank and suit symbol, as the card face reads: ``'A♠'``, ``'10♦'`` (a 'T' would read
        as the ace, туз, to a Russian player)."""
        return ("10" if self.rank == 10 else RANK_CHARS[self.rank - 2]) + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 2] + SUIT_CHARS[self.suit]

    def __repr__(self) -> str:
        return f"Card.from_str({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return (self.rank, self.suit) < (other.rank, other.suit)

    def __le__(self, other: Card) -> bool:
        return (self.rank, self.suit) <= (other.rank, other.suit)

    def __gt__(self, other: Card) -> bool:
        return (self.rank, self.suit) > (other.rank, other.suit)

    def __ge__(self, other: Card) -> bool:
        return (self.rank, self.suit) >= (other.rank, other.suit)


ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(rank=r, suit=s) for r in range(2, 15) for s in range(4))
_BY_TEXT: Final[dict[str, Card]] = {str(c): c for c in ALL_CARDS}
CARD_TEXTS: Final[tuple[str, ...]] = tuple(_BY_TEXT)
"""Each card's text by its index (``CARD_TEXTS[card.index] == str(card)``): many cards written
without making each text anew (a deck, a hand file)."""


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards from ``'Ah 2c'`` or ``['Ah', '2c']``; duplicates are refused.

    >>> parse_cards("Ah Ah")
    Traceback (most recent call last):
    ...
    engine.errors.DuplicateCardError: card 'Ah' appears twice
    """
    items = text.split() if isinstance(text, str) else list(text)
    cards = [Card.from_str(item) for item in items]
    check_distinct(cards)
    return cards


def check_distinct(cards: Iterable[Card]) -> None:
    """Raise :class:`DuplicateCardError` if a card appears twice."""
    cards = list(cards)
    if len({c.index for c in cards}) == len(cards):
        return
    seen: set[int] = set()
    for card in cards:
        if card.index in seen:
            raise DuplicateCardError(f"card {str(card)!r} appears twice")
        seen.add(card.index)


class Deck:
    """The cards still to be dealt, taken from the top in order.

    A deck is built from an explicit order (replays and tests) or shuffled by a
    random source the caller passes in (the bot passes ``secrets.SystemRandom()``).

    >>> deck = Deck.from_cards(parse_cards("As Kd"))
    >>> str(deck.deal()), len(deck)
    ('As', 1)
    """

    __slots__ = ("_cards", "_next")

    def __init__(self, *, cards: Sequence[Card], _checked: bool = False) -> None:
        if not _checked:
            check_distinct(cards)
        self._cards: tuple[Card, ...] = tuple(cards)
        self._next = 0

    @classmethod
    def from_cards(cls, cards: Sequence[Card]) -> Deck:
        """A deck that deals ``cards`` in the given order."""
        return cls(cards=cards)

    @classmethod
    def shuffled(cls, *, rng: random.Random) -> Deck:
        """All 52 cards shuffled by ``rng`` (``secrets.SystemRandom()`` in play)."""
        cards = list(ALL_CARDS)
        rng.shuffle(cards)
        return cls(cards=cards, _checked=True)

    def deal(self) -> Card:
        """Take the top card; :class:`DeckError` when none is left."""
        if self._next >= len(self._cards):
            raise DeckError(f"the deck is empty after {len(self._cards)} cards")
        card = self._cards[self._next]
        self._next += 1
        return card

    @property
    def remaining(self) -> tuple[Card, ...]:
        """The cards not yet dealt, top first."""
        return self._cards[self._next :]

    def __len__(self) -> int:
        return len(self._cards) - self._next

    def __repr__(self) -> str:
        return f"Deck.from_cards(parse_cards({' '.join(map(str, self.remaining))!r}))"
