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
            return (Action.BRING_IN, Action.COMPLETE)
        return (Action.BRING_IN,)
    owed = hand.current_bet - hand.round_bets[seat]
    can_increase = (
        hand.may_raise_flags[seat]
        and stack > owed
        and not is_capped(hand)
        and others_can_exceed(hand, seat)
    )
    if owed <= 0:
        if can_increase and hand.current_bet == 0:
            if hand.double_bet_open and stack > hand.stakes.small_bet:
                return (Action.CHECK, Action.BET, Action.BET_BIG)
            return (Action.CHECK, Action.BET)
        return (Action.CHECK,)
    if not can_increase:
        return (Action.CALL, Action.FOLD)
    if hand.full_bets == 0:
        return (Action.CALL, Action.COMPLETE, Action.FOLD)
    if hand.double_bet_open and stack > owed + hand.stakes.small_bet:
        return (Action.CALL, Action.FOLD, Action.RAISE, Action.RAISE_BIG)
    return (Action.CALL, Action.FOLD, Action.RAISE)

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
    return sum(1 for s in range(hand.seat_count) if st[s] > 0 and not fo[s])

def counts_as_full(hand: RoundView, *, action: Action, new_total: int, old_bet: int) -> bool:
    """Rule 12: a complete or bet is judged by its round total, a raise by what it adds;
    G5: a ``bet-big`` or ``raise-big`` against the big bet, the others against the step they take."""
    size = new_total - old_bet if action in (Action.RAISE, Action.RAISE_BIG) else new_total
    step = hand.stakes.big_bet if action in (Action.BET_BIG, Action.RAISE_BIG) else hand.limit
    if hand.options.short_all_in is ShortAllIn.HALF:
        return 2 * size >= step
    return size >= step


def chips_for(hand: RoundView, seat: int, action: Action) -> int:
    """The chips ``action`` by ``seat`` puts in now (rules 5, 12; G5's big bet), capped by the stack."""
    stack = hand.stacks[seat]
    if action is Action.BRING_IN:
        return min(hand.stakes.bring_in, stack)
    if action is Action.CALL:
        return min(hand.current_bet - hand.round_bets[seat], stack)
    if action in (Action.COMPLETE, Action.BET):
        return min(hand.limit - hand.round_bets[seat], stack)
    if action is Action.RAISE:
        return min(hand.current_bet + hand.limit - hand.round_bets[seat], stack)
    if action is Action.BET_BIG:
        return min(hand.stakes.big_bet - hand.round_bets[seat], stack)
    if action is Action.RAISE_BIG:
        return min(hand.current_bet + hand.stakes.big_bet - hand.round_bets[seat], stack)
    return 0
