"""Why an action is not legal now: the reason code, the English words and the amount they quote.

:meth:`engine.game.Hand.verify` raises :class:`~engine.errors.IllegalActionError` with
these, so that the bot can say the reason in the player's language::

    >>> from engine import Hand, Stakes, ScriptedDealer, parse_cards
    >>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50],
    ...             dealer=ScriptedDealer(cards=[parse_cards("Ah 2h 3h"), parse_cards("Kc Kd 2c")]))
    >>> why_not(hand, Action.FOLD)
    Reason(reason='bring_in_no_fold', text='the bring-in player must post the bring-in or complete (rule 5)', amount=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.events import Action

CAP = 4
"""Rule 6: a bet and three raises."""


class BettingView(Protocol):
    """What :func:`why_not` reads of a betting round (:class:`engine.game.Hand` is one)."""

    @property
    def actor(self) -> int | None:
        """The seat to act."""

    @property
    def current_bet(self) -> int:
        """The round's bet so far (what each player must have put in this round to stay)."""

    @property
    def round_bets(self) -> Sequence[int]:
        """Each seat's chips put in this round."""

    @property
    def stacks(self) -> Sequence[int]:
        """Each seat's chips behind."""

    @property
    def awaiting_bring_in(self) -> bool:
        """True while the bring-in player has yet to post it or complete (rule 5)."""

    @property
    def full_bets(self) -> int:
        """Full bets and raises this round (0 while only the bring-in is in)."""

    @property
    def is_capped(self) -> bool:
        """True once the round's betting is capped (rule 6)."""

    def may_raise(self, seat: int) -> bool:
        """False for a player whom a short all-in did not reopen the betting for (rule 12)."""

    @property
    def double_bet_open(self) -> bool:
        """G5: the big bet may still be chosen on this fourth street."""

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the player to act may take now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reason:
    reason: str
    """A stable code the bot translates (``'fold_free'``, ``'capped'`` ...)."""
    text: str
    """The reason in English words."""
    amount: int
    """The chips (or bets) the words quote, 0 if none."""


def why_not(view: BettingView, action: Action) -> Reason:
    """Why ``action`` is not legal for the player to act (call only when it is not)."""
    seat = view.actor
    assert seat is not None
    if action in (Action.BET_BIG, Action.RAISE_BIG):
        plain = Action.BET if action is Action.BET_BIG else Action.RAISE
        if view.double_bet_open and plain in view.legal_actions():
            return Reason(reason="double_short", amount=view.stacks[seat],
                          text=f"only {view.stacks[seat]} chips left, not more than the small bet (G5)")
        if view.double_bet_open or plain not in view.legal_actions():
            return why_not(view, plain)
        return Reason(reason="double_closed", amount=0,
                      text="the big bet is only for Stud's fourth street with a pair showing, before anybody "
                           "bet it (G5)")
    owed = view.current_bet - view.round_bets[seat]
    stack = view.stacks[seat]
    if view.awaiting_bring_in:
        if action is Action.FOLD:
            return Reason(reason="bring_in_no_fold", amount=0,
                           text="the bring-in player must post the bring-in or complete (rule 5)")
        if action is Action.COMPLETE:
            return Reason(reason="bring_in_short", amount=stack,
                           text=f"only {stack} chips left, not more than the bring-in (rule 5)")
        return Reason(reason="bring_in_first", text="the bring-in comes first (rule 5)", amount=0)
    if action is Action.BRING_IN:
        return Reason(reason="bring_in_posted", text="the bring-in is already posted", amount=0)
    if action is Action.FOLD:
        return Reason(reason="fold_free", amount=0,
                       text="nothing to call, so checking is free (rule 5: fold only facing a bet)")
    if action is Action.CHECK:
        return Reason(reason="check_facing", text=f"there is a bet of {owed} to call", amount=owed)
    if action is Action.CALL:
        return Reason(reason="nothing_to_call", text="there is nothing to call", amount=0)
    if action is Action.BET and view.current_bet > 0:
        if view.full_bets == 0:
            return Reason(reason="bet_complete", amount=view.current_bet,
                           text=f"there is already a bet of {view.current_bet}; complete it")
        return Reason(reason="bet_raise", amount=view.current_bet,
                       text=f"there is already a bet of {view.current_bet}; raise it")
    if action is Action.COMPLETE and (view.full_bets > 0 or view.current_bet == 0):
        return Reason(reason="nothing_to_complete", text="there is nothing to complete", amount=0)
    if action is Action.RAISE and view.full_bets == 0:
        if view.current_bet == 0:
            return Reason(reason="raise_no_bet", text="there is no full bet to raise; bet", amount=0)
        return Reason(reason="raise_complete", text="there is no full bet to raise; complete it", amount=0)
    if stack <= owed:
        return Reason(reason="call_all_in", text=f"only {stack} chips left, which calls all-in", amount=stack)
    if view.is_capped:
        return Reason(reason="capped", text=f"the betting is capped at {CAP} bets (rule 6)", amount=CAP)
    if not view.may_raise(seat):
        return Reason(reason="not_reopened", amount=0,
                       text="a short all-in did not reopen the betting for a player who has acted (rule 12)")
    return Reason(reason="nobody_to_call", text="no other player could call more (rule 13)", amount=0)
