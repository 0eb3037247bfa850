"""Where a hand's cards come from: a deck dealt in table order, or a script.

The hand asks for cards in real dealing order (each street round the table from
seat 0). A :class:`DeckDealer` takes them from the top of a :class:`Deck`; a
:class:`ScriptedDealer` hands each seat the cards a hand file lists for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.cards import Card, Deck, check_distinct
from engine.errors import DeckError


class CardSource(Protocol):
    """Gives the hand its next card for a seat, or the community card."""

    def deal(self, seat: int) -> Card: ...

    def deal_community(self) -> Card: ...


class DeckDealer:
    """Deals from the top of a deck, whoever the card is for."""

    __slots__ = ("deck",)

    def __init__(self, deck: Deck) -> None:
        self.deck = deck

    def deal(self, seat: int) -> Card:
        return self.deck.deal()

    def deal_community(self) -> Card:
        return self.deck.deal()


class ScriptedDealer:
    """Deals each seat its listed cards in order (hand files, tests)."""

    __slots__ = ("_cards", "_community", "_names", "_next", "community_used")

    def __init__(
        self, *, cards: Sequence[Sequence[Card]], community: Card | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        check_distinct([c for seat in cards for c in seat] + ([community] if community else []))
        self._cards = [list(seat) for seat in cards]
        self._next = [0] * len(cards)
        self._community = community
        self._names = list(names) if names is not None else [f"seat {i}" for i in range(len(cards))]
        self.community_used = False

    def deal(self, seat: int) -> Card:
        i = self._next[seat]
        cards = self._cards[seat]
        if i >= len(cards):
            raise DeckError(
                f"missing card: {self._names[seat]} needs a card number {i + 1} but only "
                f"{len(cards)} are given"
            )
        self._next[seat] = i + 1
        return cards[i]

    def deal_community(self) -> Card:
        if self._community is None:
            raise DeckError(
                "missing card: the deck ran short on seventh street (rule 10) but no community card is given"
            )
        self.community_used = True
        return self._community

    def undealt(self) -> list[tuple[int, list[Card]]]:
        """Seats with cards listed beyond those dealt, and those cards."""
        return [(s, cards[n:]) for s, (cards, n) in enumerate(zip(self._cards, self._next)) if len(cards) > n]

    @property
    def community(self) -> Card | None:
        return self._community
