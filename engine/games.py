"""The three stud games and what differs between them (GAMES.md): one place per rule.

Every rule of RULES.md holds for all three games; a game changes only who brings in
(rule 4, G1, G2), whose board acts first (rule 8, G3, G4), whether fourth street may
open with the big bet (G5), and what a pot is divided by (rules 17-19, G6, G7).

>>> Game.from_str("razz").label
'Razz'
>>> from engine.cards import parse_cards
>>> doors = parse_cards("Qc Qh 2s")
>>> [str(doors[i]) for i in (RULES_OF[Game.STUD8].bring_in(doors), RULES_OF[Game.RAZZ].bring_in(doors))]
['2s', 'Qh']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.cards import Card
from engine.errors import StakesError
from engine.evaluate import low_value
from engine.lowball import razz_board_key, razz_bring_in_key, razz_value
from engine.order import board_key, bring_in_card_key


class Game(StrEnum):
    """The game of a hand (G9: the hand file's ``game``)."""

    STUD8 = "stud8"
    """Seven Card Stud Hi-Lo, eight or better (RULES.md)."""
    STUD = "stud"
    """Seven Card Stud, high only (G1, G3, G5, G6)."""
    RAZZ = "razz"
    """Razz, ace-to-five low (G2, G4, G7)."""

    @classmethod
    def from_str(cls, text: Any) -> Game:
        """Parse ``'stud8'``, ``'stud'``, ``'razz'`` (case and spaces forgiven).

        >>> Game.from_str("chess")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        engine.errors.StakesError: unknown game 'chess': expected one of stud8, stud, razz
        """
        name = text.strip().lower() if isinstance(text, str) else text
        try:
            return cls(name)
        except ValueError:
            raise StakesError(f"unknown game {text!r}: expected one of stud8, stud, razz") from None

    @property
    def label(self) -> str:
        """The game's English name: ``'Stud Hi-Lo'``, ``'Stud'``, ``'Razz'``."""
        return _TITLES[self]


_TITLES = {Game.STUD8: "Stud Hi-Lo", Game.STUD: "Stud", Game.RAZZ: "Razz"}


class Scoring(StrEnum):
    """What a pot is divided by at the showdown."""

    HI_LO = "hi-lo"
    """Rules 17-19: half to the best high, half to the best eight-or-better low, if any."""
    HIGH = "high"
    """G6: the best high hand takes the pot."""
    LOW = "low"
    """G7: the best ace-to-five low takes the pot; no qualifier."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRules:
    """The rules that differ between the stud games."""

    game: Game
    bring_in_key: Callable[[Card], tuple[int, int]]
    """The door card with the smallest key brings in (rule 4, G1, G2)."""
    board_key: Callable[[Sequence[Card]], Any]
    """The board with the biggest key acts first from fourth street (rule 8, G3, G4)."""
    scoring: Scoring
    open_pair: bool
    """G5: a pair showing on fourth street lets the first bet be the big bet."""

    def double_bet_on(self, boards: Iterable[Sequence[Card]], *, option: bool) -> bool:
        """G5: fourth street may open with the big bet: Stud, the table ``option`` on, and a pair among
        the up cards of some live player (``boards``, read only as far as needed: they may come lazily)."""
        if not (self.open_pair and option):
            return False
        return any(len({c.rank for c in board}) < len(board) for board in boards)

    def bring_in(self, doors: Sequence[Card]) -> int:
        """The index in ``doors`` of the card that brings in."""
        key = self.bring_in_key
        return min(range(len(doors)), key=lambda i: key(doors[i]))


RULES_OF: dict[Game, GameRules] = {
    Game.STUD8: GameRules(game=Game.STUD8, bring_in_key=bring_in_card_key, board_key=board_key,
                          scoring=Scoring.HI_LO, open_pair=False),
    Game.STUD: GameRules(game=Game.STUD, bring_in_key=bring_in_card_key, board_key=board_key,
                         scoring=Scoring.HIGH, open_pair=True),
    Game.RAZZ: GameRules(game=Game.RAZZ, bring_in_key=razz_bring_in_key, board_key=razz_board_key,
                         scoring=Scoring.LOW, open_pair=False),
}

MIX_ORDER: tuple[Game, ...] = (Game.RAZZ, Game.STUD, Game.STUD8)
"""G8: the stud games of H.O.R.S.E., in its order."""


def mix_game(*, index: int, per_game: int) -> Game:
    """G8: the game of the ``index``-th hand (from 0) of a mix table dealing ``per_game`` hands a game.

    >>> [mix_game(index=i, per_game=2).value for i in range(7)]
    ['razz', 'razz', 'stud', 'stud', 'stud8', 'stud8', 'razz']
    """
    return MIX_ORDER[(index // per_game) % len(MIX_ORDER)]


def low_of(scoring: Scoring, cards: Sequence[Card]) -> int | None:
    """The low value of 5 to 8 cards as ``scoring`` reads it: eight-or-better (or None), Razz's
    ace-to-five, or None when the game has no low.

    >>> from engine.cards import parse_cards
    >>> cards = parse_cards("9c 9d 4h 3s 2c")
    >>> low_of(Scoring.HI_LO, cards) is None, low_of(Scoring.HIGH, cards) is None, low_of(Scoring.LOW, cards) > 0
    (True, True, True)
    """
    if scoring is Scoring.HIGH:
        return None
    if scoring is Scoring.LOW:
        return razz_value(cards)
    return low_value(cards)
