"""The betting rules of a round: what the player to act may do now and for how many chips.

Rules 5 (the bring-in), 6 (the cap), 12 (short all-ins), 13 (nobody left to call more) and
GAMES.md G5 (Stud's fourth-street big bet), read from a hand's state (a :class:`RoundView`;
:class:`engine.game.Hand` is one) and changing nothing. :mod:`engine.refusals` says why an
action is not among them.
"""

from __future__ import annotations

from typing import Protocol

from engine.events import Action
from engine.refusals import CAP
from engine.stakes import Options, ShortAllIn, Stakes

__all__ = ["CAP", "RoundView", "actors_count", "chips_for", "counts_as_full", "is_capped", "legal_now",
           "others_can_exceed"]

# The hot path reads the actions from module globals: ``Action.FOLD`` is an attribute of an enum
# class, which costs some ten times a global's lookup in CPython 3.11; and the legal tuples are
# made once.
_BRING_IN, _COMPLETE, _BET, _RAISE = Action.BRING_IN, Action.COMPLETE, Action.BET, Action.RAISE
_BET_BIG, _RAISE_BIG, _CALL, _CHECK, _FOLD = Action.BET_BIG, Action.RAISE_BIG, Action.CALL, Action.CHECK, Action.FOLD
_ONLY_BRING_IN = (_BRING_IN,)
_BRING_IN_OR_COMPLETE = (_BRING_IN, _COMPLETE)
_ONLY_CHECK = (_CHECK,)
_CHECK_BET = (_CHECK, _BET)
_CHECK_BET_BIG = (_CHECK, _BET, _BET_BIG)
_CALL_FOLD = (_CALL, _FOLD)
_CALL_COMPLETE = (_CALL, _COMPLETE, _FOLD)
_CALL_RAISE = (_CALL, _FOLD, _RAISE)
_CALL_RAISE_BIG = (_CALL, _FOLD, _RAISE, _RAISE_BIG)
_BY_RAISE = (_RAISE, _RAISE_BIG)
_HALF = ShortAllIn.HALF
_BIG = (_BET_BIG, _RAISE_BIG)


class RoundView(Protocol):
    """What the betting rules read of a hand."""

    stakes: Stakes
    options: Options
    seat_count: int
    actor: int | None
    current_bet: int
    full_bets: int
    cap_reached: bool
    stacks: list[int]
    round_bets: list[int]
    folded: list[bool]
    may_raise_flags: list[bool]

    @property
    def awaiting_bring_in(self) -> bool: ...

    @property
    def double_bet_open(self) -> bool: ...

    @property
    def limit(self) -> int: ...


def legal_now(hand: RoundView) -> tuple[Action, ...]:
    """The actions the player to act may take now (rules 5, 6, 12, 13; G5), in button order."""
    seat = hand.actor
    if seat is None:
        return ()
    stack = hand.stacks[seat]
    if hand.awaiting_bring_in:
        # Rule 5: post the bring-in or complete; no fold, and a player whose chips
        # do not exceed the bring-in can only post it.
        if stack > hand.stakes.bring_in and others_can_exceed(hand, seat):
            return _BRING_IN_OR_COMPLETE
        return _ONLY_BRING_IN
    bet = hand.current_bet
    owed = bet - hand.round_bets[seat]
    can_increase = (
        hand.may_raise_flags[seat]
        and stack > owed
        and (hand.full_bets < CAP or not is_capped(hand))  # is_capped's first test, without the call
        and others_can_exceed(hand, seat)
    )
    if owed <= 0:
        if can_increase and bet == 0:
            if hand.double_bet_open and stack > hand.stakes.small_bet:
                return _CHECK_BET_BIG
            return _CHECK_BET
        return _ONLY_CHECK
    if not can_increase:
        return _CALL_FOLD
    if hand.full_bets == 0:
        return _CALL_COMPLETE
    if hand.double_bet_open and stack > owed + hand.stakes.small_bet:
        return _CALL_RAISE_BIG
    return _CALL_RAISE


def others_can_exceed(hand: RoundView, seat: int) -> bool:
    """Rule 13: some other player in the hand could put in more than the current bet."""
    bet = hand.current_bet
    rb, st, fo = hand.round_bets, hand.stacks, hand.folded
    for o in range(hand.seat_count):  # noqa: SIM110 (a plain loop: this is the hot path)
        if o != seat and not fo[o] and rb[o] + st[o] > bet:
            return True
    return False

def is_capped(hand: RoundView) -> bool:
    """Rule 6: four bets; not while only two players who are not all-in remain."""
    if hand.full_bets < CAP:
        return False
    if hand.cap_reached or hand.options.heads_up_cap:
        return True
    return actors_count(hand) > 2

def actors_count(hand: RoundView) -> int:
    """Players in the hand with chips behind."""
    st, fo = hand.stacks, hand.folded
    count = 0
    for s in range(hand.seat_count):  # a plain loop: once a street and on every cap
        if st[s] > 0 and not fo[s]:
            count += 1
    return count

def counts_as_full(hand: RoundView, *, action: Action, new_total: int, old_bet: int) -> bool:
    """Rule 12: a complete or bet is judged by its round total, a raise by what it adds;
    G5: a ``bet-big`` or ``raise-big`` against the big bet, the others against the step they take."""
    size = new_total - old_bet if action in _BY_RAISE else new_total
    step = hand.stakes.big_bet if action in _BIG else hand.limit
    if hand.options.short_all_in is _HALF:
        return 2 * size >= step
    return size >= step


def chips_for(hand: RoundView, seat: int, action: Action) -> int:
    """The chips ``action`` by ``seat`` puts in now (rules 5, 12; G5's big bet), capped by the stack."""
    if action is _CALL:  # the commonest first
        chips = hand.current_bet - hand.round_bets[seat]
    elif action is _CHECK or action is _FOLD:
        return 0
    elif action is _BRING_IN:
        chips = hand.stakes.bring_in
    elif action is _COMPLETE or action is _BET:
        chips = hand.limit - hand.round_bets[seat]
    elif action is _RAISE:
        chips = hand.current_bet + hand.limit - hand.round_bets[seat]
    elif action is _BET_BIG:
        chips = hand.stakes.big_bet - hand.round_bets[seat]
    elif action is _RAISE_BIG:
        chips = hand.current_bet + hand.stakes.big_bet - hand.round_bets[seat]
    else:
        return 0
    stack = hand.stacks[seat]
    return chips if chips < stack else stack
