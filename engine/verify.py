"""``python -m engine.verify HAND.json``: check a hand file's cards against its fair deck.

The hand file's ``fair`` record (FAIRNESS.md, stud8-fair/1) must carry the revealed
server seed. The check: SHA-256 of the server seed is the commitment; the record deals
to the hand's players in seat order; and every card the hand lists is the card the deck
gives at its position in dealing order (the hand is replayed by the engine to know who
was dealt each street). Standard library and ``engine`` only.

- exit 0: one line, the verdict (``fair: ...``);
- exit 1: one line naming the first card or value that differs (``unfair: ...``);
- exit 2: malformed input, including no fair record or a seed not revealed yet, as
  ``{"error": ..., "action_index": N}`` on stdout, as ``python -m engine.replay`` does.

>>> import json
>>> from engine import Deck, DeckDealer, Hand, Stakes, hand_file_of
>>> from engine.fair import FairRecord
>>> record = FairRecord.for_deal(table="console:main", hand_no=12, server_seed=bytes(range(32)),
...                              player_seeds=[("ann", "lucky 7"), ("bob", ""), ("cat", "кот")])
>>> hand = Hand(stakes=Stakes(), names=["ann", "bob", "cat"], stacks=[50, 50, 50],
...             dealer=DeckDealer(Deck.from_cards(record.deck())))
>>> for action in ["bring-in", "fold", "fold"]:
...     hand.act(action)
>>> verdict = verify_hand_file(hand_file_of(hand, fair=record))
>>> verdict.ok, verdict.cards_checked
(True, 9)
>>> data = hand_file_of(hand, fair=record).to_dict()
>>> data["cards"]["bob"][2] = "Ah"
>>> print(run_text(json.dumps(data))[1])
unfair: bob's door card is Ah but the deck gives 2s at position 7
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import Card
from engine.errors import EngineError, FairRecordError, NotRevealedError
from engine.events import Action
from engine.fair import commitment_of
from engine.game import Hand
from engine.handfile import HandFile, replay_hand
from engine.replay import run_on_file, status_or_error

USAGE = "usage: python -m engine.verify HAND.json (or - for stdin)"
_CARD_NAMES = (
    "first down card", "second down card", "door card", "4th-street card", "5th-street card",
    "6th-street card", "7th-street card",
)


class Finding(StrEnum):
    """What a verification found: the deck is fair, or the first thing that differs."""

    FAIR = "fair"
    COMMITMENT = "commitment"
    """SHA-256 of the server seed is not the commitment."""
    PLAYERS = "players"
    """The record deals to other players (or another seat order) than the hand has."""
    CARD = "card"
    """A dealt card (or the community card) is not the deck's card at its position."""
    UNDEALT = "undealt"
    """The hand lists a card (or a community card) that its actions never deal."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of :func:`verify_hand_file`, with every value a caller may want to say.

    For ``CARD``: ``player`` (None for the community card), ``card_index`` (0-6 in the
    player's dealing order), ``listed`` (the hand's card), ``expected`` (the deck's card)
    and ``position`` (0 = the first card dealt). ``message`` is the English line.
    """

    finding: Finding
    table: str
    hand_no: int
    commitment: str
    cards_checked: int
    message: str
    player: str | None = None
    card_index: int | None = None
    listed: str | None = None
    expected: str | None = None
    position: int | None = None

    @property
    def ok(self) -> bool:
        return self.finding is Finding.FAIR


def card_name(index: int) -> str:
    """``'door card'``, ``'4th-street card'``... for a player's card number ``index`` (0-6).

    >>> card_name(3)
    '4th-street card'
    """
    return _CARD_NAMES[index]


def verify_hand_file(hand_file: HandFile) -> Verdict:
    """Compare every card the hand lists with the fair deck of its record.

    Raises :class:`FairRecordError` if the hand has no fair record,
    :class:`NotRevealedError` if its server seed is not revealed yet, and
    :class:`ReplayError` if the hand does not replay (the errors of ``python -m engine.replay``);
    a card that differs from the deck is a verdict, even where it makes the actions illegal.
    """
    record = hand_file.fair
    if record is None:
        raise FairRecordError("the hand file has no 'fair' record, so there is no deck to check it against")
    if record.server_seed is None:
        raise NotRevealedError(
            f"hand {record.hand_no} of table {record.table!r}: the server seed is not revealed yet "
            f"(it is published after the hand, or when the table stops)"
        )
    found = functools.partial(Verdict, table=record.table, hand_no=record.hand_no, commitment=record.commitment)
    actual = commitment_of(record.server_seed)
    if actual != record.commitment:
        return found(
            finding=Finding.COMMITMENT, cards_checked=0,
            message=f"unfair: SHA-256 of the server seed is {actual}, not the commitment {record.commitment}",
        )
    names = [name for name, _ in hand_file.players]
    if list(record.names) != names:
        return found(
            finding=Finding.PLAYERS, cards_checked=0,
            message=f"unfair: the fair record deals to {', '.join(record.names)} but the hand's players "
            f"in seat order are {', '.join(names)}",
        )
    # Deal from the deck, playing the hand's actions, until a card differs from the listed one.
    # Up to the first difference this is the very hand the file describes, so the first
    # difference is found even when the listed cards make the later actions illegal.
    deck = record.deck()
    dealer = _ComparingDealer(deck=deck, listed=[hand_file.cards[n] for n in names], community=hand_file.community)
    with contextlib.suppress(_Differs, EngineError, ValueError):
        hand = Hand(
            stakes=hand_file.stakes, options=hand_file.options, names=names,
            stacks=[s for _, s in hand_file.players], dealer=dealer, game=hand_file.game,
        )
        for text in hand_file.actions:
            if hand.is_over:
                break
            hand.act(Action(text))
    if dealer.difference is not None:
        seat, index, listed, position = dealer.difference
        what = "the community card" if seat is None else f"{names[seat]}'s {card_name(index)}"
        return found(
            finding=Finding.CARD, cards_checked=position,
            message=f"unfair: {what} is {listed} but the deck gives {deck[position]} at position {position}",
            player=None if seat is None else names[seat], card_index=None if seat is None else index,
            listed=str(listed), expected=str(deck[position]), position=position,
        )
    hand = replay_hand(hand_file)  # the same deal as above, so a ReplayError here is the hand's own
    dealt = [len(cards) for cards in hand.cards]
    checked = sum(dealt) + (hand.community is not None)
    for seat, name in enumerate(names):
        extra = hand_file.cards[name][dealt[seat]:]
        if extra:
            return found(
                finding=Finding.UNDEALT, cards_checked=checked,
                message=f"unfair: {name}'s {card_name(dealt[seat])} {extra[0]} is listed, but the hand never deals it",
                player=name, card_index=dealt[seat], listed=str(extra[0]),
            )
    if hand_file.community is not None and hand.community is None:
        return found(
            finding=Finding.UNDEALT, cards_checked=checked,
            message=f"unfair: the community card {hand_file.community} is listed, but the hand never deals one",
            listed=str(hand_file.community),
        )
    return found(
        finding=Finding.FAIR, cards_checked=checked,
        message=f"fair: hand {record.hand_no} of table {record.table!r}: SHA-256 of the server seed is the "
        f"commitment {record.commitment}, and all {checked} cards dealt are the deck's positions 0-{checked - 1}",
    )


class _Differs(Exception):
    """Stops the comparing deal at the first card that is not the listed one (or not listed)."""


class _ComparingDealer:
    """Deals the fair deck from position 0 and compares each card with the listed one."""

    def __init__(self, *, deck: Sequence[Card], listed: Sequence[Sequence[Card]], community: Card | None) -> None:
        self._deck = deck
        self._listed = listed
        self._community = community
        self._dealt = [0] * len(listed)
        self._position = 0
        self.difference: tuple[int | None, int, Card, int] | None = None
        """(seat or None for the community card, the seat's card number, listed card, deck position)."""

    def deal(self, seat: int) -> Card:
        index = self._dealt[seat]
        listed = self._listed[seat]
        self._dealt[seat] += 1
        return self._take(seat, index, listed[index] if index < len(listed) else None)

    def deal_community(self) -> Card:
        return self._take(None, 0, self._community)

    def _take(self, seat: int | None, index: int, listed: Card | None) -> Card:
        if listed is None:  # not listed: the replay of the hand file itself says so
            raise _Differs
        card = self._deck[self._position]
        if card != listed:
            self.difference = (seat, index, listed, self._position)
            raise _Differs
        self._position += 1
        return card


def run_text(text: str | bytes) -> tuple[int, str]:
    """Return (exit status, stdout text) for a hand file's JSON text: no record, a seed not
    revealed yet and a hand that does not replay are status 2 with the JSON error."""

    def work() -> tuple[int, str]:
        verdict = verify_hand_file(HandFile.from_json(text))
        return (0 if verdict.ok else 1), verdict.message

    return status_or_error(work)


def run(argv: Sequence[str]) -> tuple[int, str]:
    """Return (exit status, stdout text) for the given arguments."""
    return run_on_file(argv, usage=USAGE, handle=run_text)


def main() -> None:
    status, out = run(sys.argv[1:])
    print(out)
    sys.exit(status)


if __name__ == "__main__":
    main()
