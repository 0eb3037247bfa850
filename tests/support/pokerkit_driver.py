"""Play one hand of a stud game in PokerKit 0.7.7: Stud Hi-Lo, Stud or Razz.

``variant`` picks PokerKit's game: ``"stud8"`` (the default)
``FixedLimitSevenCardStudHighLowSplitEightOrBetter``, ``"stud"``
``FixedLimitSevenCardStud`` (no open-pair big bet: GAMES.md G5 with
``open_pair_double`` off) and ``"razz"`` ``FixedLimitRazz``.

This is the PokerKit side of the differential test. ``PKHand`` deals exactly the
cards it is given (no burn cards: PokerKit's stud burns one card before 4th-7th
street, and the driver burns an *unknown* card ``??``, which takes no real card
out of the deck), automates everything that is not a player decision (antes, bet
collection, showdown showing/mucking, hand killing, chip pushing and pulling),
and leaves only decisions to the caller, in this project's vocabulary.

Amounts in ``legal()`` are the chips the action *adds* to what the player has
in front of them this round (the ``amount`` of a HAND_FORMAT.md log entry):
0 for fold and check, the (possibly all-in) call amount, the bring-in posted,
and for ``cbr`` the chips needed to complete/bet/raise to PokerKit's fixed-limit
amount. ``round_bets`` gives the chips in front of each seat, so a total is
``round_bets[actor] + legal()[name]``.

Every PokerKit call runs with warnings turned into errors: a PokerKit warning
(a card it does not expect, chips it would burn, ...) is a failure, not noise.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from pokerkit import (
    Automation,
    Card,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Mode,
    State,
)

__all__ = ["ACTION_NAMES", "GAMES", "PKHand"]

GAMES: Final = {
    "stud8": FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    "stud": FixedLimitSevenCardStud,
    "razz": FixedLimitRazz,
}
"""This project's game names (engine.games.Game values) -> PokerKit's game classes."""

ACTION_NAMES: Final = ("bring-in", "fold", "check", "call", "cbr")
_ALIASES: Final = {"complete": "cbr", "bet": "cbr", "raise": "cbr"}
_CARD_RE: Final = re.compile(r"[2-9TJQKA][cdhs]")
# Dealt order: down, down, door (up), 4th up, 5th up, 6th up, 7th down.
_UP: Final = (False, False, True, True, True, True, False)
_BURN: Final = Card.UNKNOWN  # a burn that consumes no real card
_AUTOMATIONS: Final = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
    # Not automated, done by the driver: CARD_BURNING (burns '??'),
    # HOLE_DEALING (deals our cards), BOARD_DEALING (refused: no community
    # card), RUNOUT_COUNT_SELECTION (never asked in tournament mode).
)

_T = TypeVar("_T")


def _strict(call: Callable[[], _T]) -> _T:
    """Run a PokerKit call with every warning raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


class PKHand:
    """One hand of a PokerKit stud game (``variant``: a key of :data:`GAMES`)."""

    def __init__(
        self,
        *,
        ante: int,
        bring_in: int,
        small_bet: int,
        big_bet: int,
        stacks: list[int],
        cards: list[list[str]],
        ante_trimming_status: bool = True,
        variant: str = "stud8",
    ) -> None:
        """Set up the hand and run it up to the first decision (or to its end).

        ``cards[seat]`` lists that seat's cards in dealt order (down, down, door,
        4th, 5th, 6th, 7th); a seat that is sure to fold early may list fewer
        (at least 3). Seat 0 is the first seat to the dealer's left.
        """
        if variant not in GAMES:
            raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(GAMES)}")
        game_class = GAMES[variant]
        self.variant: Final = variant
        for name, value in (("ante", ante), ("bring_in", bring_in),
                            ("small_bet", small_bet), ("big_bet", big_bet)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an int, not {value!r}")
        if not 0 <= ante <= bring_in < small_bet < big_bet or bring_in < 1:
            raise ValueError(
                "stakes must satisfy 0 <= ante <= bring_in < small_bet < big_bet"
                f" and bring_in >= 1 (got {ante}, {bring_in}, {small_bet}, {big_bet})")
        if not 2 <= len(stacks) <= 8:
            raise ValueError(f"2 to 8 seats are needed, not {len(stacks)}")
        if len(cards) != len(stacks):
            raise ValueError(f"{len(stacks)} stacks but {len(cards)} card lists")
        for seat, stack in enumerate(stacks):
            if isinstance(stack, bool) or not isinstance(stack, int) or stack <= 0:
                raise ValueError(f"seat {seat}: stack must be a positive int, not {stack!r}")
        seen: dict[str, int] = {}
        parsed: list[list[Card]] = []
        for seat, seat_cards in enumerate(cards):
            if not 3 <= len(seat_cards) <= 7:
                raise ValueError(f"seat {seat}: 3 to 7 cards are needed, not {len(seat_cards)}")
            row: list[Card] = []
            for text in seat_cards:
                if not isinstance(text, str) or not _CARD_RE.fullmatch(text):
                    raise ValueError(f"seat {seat}: bad card {text!r}")
                if text in seen:
                    raise ValueError(f"card {text} given to seats {seen[text]} and {seat}")
                seen[text] = seat
                (card,) = Card.parse(text)
                row.append(card)
            parsed.append(row)

        self._cards: Final = parsed
        self._dealt = [0] * len(stacks)
        self._start: Final = tuple(stacks)
        self._bring_in_seat: int | None = None
        self._first_actor: dict[int, int] = {}
        self._street = 3
        self.history: list[tuple[int, int, str, int]] = []
        """Every decision: (street, seat, action name, chips added)."""

        self._state: Final[State] = _strict(
            lambda: game_class.create_state(
                _AUTOMATIONS,
                ante_trimming_status,
                ante,
                bring_in,
                small_bet,
                big_bet,
                list(stacks),
                len(stacks),
                mode=Mode.TOURNAMENT,
            ),
        )
        self._advance()

    # ------------------------------------------------------------------ driving

    def _advance(self) -> None:
        """Do every non-decision step until a decision is pending or the hand ends."""
        state = self._state
        while state.status and state.actor_index is None:
            if state.street_index is not None:
                self._street = 3 + state.street_index
            if state.card_burning_status:
                _strict(lambda: state.burn_card(_BURN))
            elif (seat := state.hole_dealee_index) is not None:
                self._deal(seat)
            elif any(state.board_dealing_counts):
                raise RuntimeError(
                    "PokerKit wants a community card (the deck cannot give every"
                    " live player a card); this driver does not support that")
            else:
                raise RuntimeError(
                    f"PokerKit is waiting for an operation the driver does not know"
                    f" (street index {state.street_index}, operations so far"
                    f" {len(state.operations)})")
        if state.street_index is not None:
            self._street = 3 + state.street_index
        if state.status and self._bring_in_seat is None and state.can_post_bring_in():
            self._bring_in_seat = state.actor_index
        if not state.status:
            total = sum(state.stacks)
            if total != sum(self._start) or any(state.bets):
                raise RuntimeError(f"chips not conserved: {state.stacks} from {self._start}")

    def _deal(self, seat: int) -> None:
        state = self._state
        index = self._dealt[seat]
        if index >= len(self._cards[seat]):
            raise ValueError(f"seat {seat} needs card #{index + 1}, but only"
                             f" {len(self._cards[seat])} were given")
        card = self._cards[seat][index]
        dealing = _strict(lambda: state.deal_hole((card,), seat))
        self._dealt[seat] += 1
        if dealing.cards != (card,) or dealing.statuses != (_UP[index],):
            raise RuntimeError(f"PokerKit dealt seat {seat}'s card #{index + 1} as"
                               f" {dealing.cards} up={dealing.statuses}")

    # ---------------------------------------------------------------- the hand

    @property
    def actor(self) -> int | None:
        """The seat that must decide now; None when the hand is over."""
        return self._state.actor_index if self._state.status else None

    @property
    def street(self) -> int:
        """3..7: the current street (the last street reached once the hand is over)."""
        return self._street

    @property
    def round_bets(self) -> list[int]:
        """Chips in front of each seat in the current betting round."""
        return list(self._state.bets) if self._state.street_index is not None else [0] * len(self._start)

    @property
    def stacks(self) -> list[int]:
        """Chips behind for each seat (final stacks once the hand is over)."""
        return list(self._state.stacks)

    def legal(self) -> dict[str, int]:
        """Legal action names -> chips the action adds to the player's bet this round."""
        state = self._state
        actor = self.actor
        if actor is None:
            return {}
        options: dict[str, int] = {}
        if state.can_post_bring_in():
            amount = state.effective_bring_in_amount
            assert amount is not None
            options["bring-in"] = amount
        if state.can_fold():
            options["fold"] = 0
        if state.can_check_or_call():
            amount = state.checking_or_calling_amount
            assert amount is not None
            options["call" if amount else "check"] = amount
        if state.can_complete_bet_or_raise_to():
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            assert low is not None and low == high, (low, high)
            options["cbr"] = low - state.bets[actor]
        return options

    def act(self, name: str) -> None:
        """Take one of the actions of ``legal()`` ('complete'/'bet'/'raise' mean 'cbr')."""
        name = _ALIASES.get(name, name)
        options = self.legal()
        actor = self.actor
        if actor is None:
            raise ValueError(f"no decision is pending (hand over), cannot {name!r}")
        if name not in options:
            raise ValueError(f"{name!r} is not legal for seat {actor} on street"
                             f" {self.street}; legal: {sorted(options)}")
        state = self._state
        street = self.street
        if name == "bring-in":
            _strict(state.post_bring_in)
        elif name == "fold":
            _strict(state.fold)
        elif name in ("check", "call"):
            _strict(state.check_or_call)
        else:
            _strict(state.complete_bet_or_raise_to)
        self._first_actor.setdefault(street, actor)
        self.history.append((street, actor, name, options[name]))
        self._advance()

    @property
    def is_over(self) -> bool:
        return not self._state.status

    def payoffs(self) -> list[int]:
        """Final stack minus starting stack, per seat (the hand must be over)."""
        if not self.is_over:
            raise RuntimeError("the hand is not over")
        result = [end - start for end, start in zip(self._state.stacks, self._start, strict=True)]
        if result != list(self._state.payoffs):
            raise RuntimeError(f"PokerKit payoffs {self._state.payoffs} != stack changes {result}")
        return result

    @property
    def bring_in_seat(self) -> int | None:
        """The seat that had to post the bring-in (None if nobody could)."""
        return self._bring_in_seat

    def first_actor_by_street(self) -> dict[int, int]:
        """Street -> first seat that made a decision on it (3: the bring-in seat)."""
        return dict(self._first_actor)

    @property
    def state(self) -> State:
        """The underlying PokerKit state (read it; do not drive it directly)."""
        return self._state

    @staticmethod
    def play(
        *,
        ante: int,
        bring_in: int,
        small_bet: int,
        big_bet: int,
        stacks: list[int],
        cards: list[list[str]],
        actions: Sequence[str],
        ante_trimming_status: bool = True,
        variant: str = "stud8",
    ) -> PKHand:
        """Play a scripted hand; the actions must take it to its end."""
        hand = PKHand(ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=big_bet,
                      stacks=stacks, cards=cards, ante_trimming_status=ante_trimming_status,
                      variant=variant)
        for index, name in enumerate(actions):
            if hand.is_over:
                raise ValueError(f"action #{index} {name!r}: the hand is already over")
            hand.act(name)
        if not hand.is_over:
            raise ValueError(f"after {len(actions)} actions seat {hand.actor} must still act")
        return hand
