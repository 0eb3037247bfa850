"""Property tests: random tables, tiny stacks, random legal (and illegal) decisions.

After every hand: the chips add up, no stack is negative, no card was dealt twice,
the player to act always had a legal action, the hand ended, and replaying the
hand file it wrote gives the same result. Refused actions change nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Deck,
    DeckDealer,
    EngineError,
    Hand,
    HandFile,
    Options,
    ShortAllIn,
    Stakes,
    hand_file_of,
    replay_hand,
    result_of,
)

STAKES = [
    Stakes(),
    Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4),
    Stakes(ante=2, bring_in=2, small_bet=4, big_bet=8),
    Stakes(ante=5, bring_in=10, small_bet=20, big_bet=40),
]

stacks_strategy = st.one_of(st.integers(1, 12), st.integers(13, 60), st.integers(61, 400))


@st.composite
def tables(draw: st.DrawFn) -> tuple[Stakes, Options, list[int], int]:
    n = draw(st.integers(2, 8))
    stakes = draw(st.sampled_from(STAKES))
    options = Options(heads_up_cap=draw(st.booleans()), short_all_in=draw(st.sampled_from(list(ShortAllIn))))
    stacks = draw(st.lists(stacks_strategy, min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32 - 1))
    return stakes, options, stacks, seed


def _snapshot(hand: Hand) -> tuple[object, ...]:
    return (tuple(hand.stacks), tuple(hand.contributed), tuple(hand.round_bets), hand.actor, hand.street,
            len(hand.events), len(hand.actions), tuple(hand.folded))


EXAMPLES = int(os.environ.get("STUD_PROPERTY_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_every_hand_conserves_chips_ends_and_replays(table: tuple[Stakes, Options, list[int], int],
                                                     data: st.DataObject) -> None:
    stakes, options, start, seed = table
    n = len(start)
    hand = Hand(stakes=stakes, options=options, names=[f"p{i}" for i in range(n)], stacks=start,
                dealer=DeckDealer(Deck.shuffled(rng=random.Random(seed))))
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 200, "a hand must end"
        actor = hand.actor
        assert actor is not None and hand.can_act(actor)
        legal = hand.legal_actions()
        assert legal, "the player to act always has a legal action"
        assert sum(hand.stacks) + sum(hand.contributed) == sum(start)
        # An illegal action (or a wrong seat) is refused and changes nothing.
        illegal = [a for a in Action if a not in legal]
        if illegal and data.draw(st.booleans(), label="try illegal"):
            before = _snapshot(hand)
            bad = data.draw(st.sampled_from(illegal), label="illegal")
            assert not hand.can(bad)
            try:
                hand.act(bad)
            except EngineError:
                pass
            else:
                raise AssertionError(f"{bad} was accepted")
            wrong_seat = (actor + 1) % n
            try:
                hand.act(legal[0], seat=wrong_seat)
            except EngineError:
                pass
            else:
                raise AssertionError("a player acted out of turn")
            assert _snapshot(hand) == before
        hand.act(data.draw(st.sampled_from(legal), label="action"))
    assert sum(hand.stacks) == sum(start)
    assert min(hand.stacks) >= 0
    dealt = [c for seat in hand.cards for c in seat] + ([hand.community] if hand.community else [])
    assert len(dealt) == len(set(dealt)) == hand.dealt_count
    assert sum(sum(r.shares.values()) for r in hand.pot_results) == sum(hand.contributed)
    assert all(r.shares for r in hand.pot_results)
    _check_pots_formed_as_rule_11_says(hand)
    # The hand file it writes replays to the same result.
    text = json.dumps(hand_file_of(hand).to_dict())
    assert result_of(replay_hand(HandFile.from_json(text))) == result_of(hand)


def _check_pots_formed_as_rule_11_says(hand: Hand) -> None:
    """Rule 11: a pot ends only at an all-in total; no all-in, one pot; neighbours differ."""
    pots = hand.pot_results
    all_in = {s for s in hand.live_seats if hand.contributed[s] == hand.starting_stacks[s]}
    all_in_totals = {hand.contributed[s] for s in all_in}
    if not all_in:
        assert len(pots) == (1 if sum(hand.contributed) else 0), f"nobody all-in but {len(pots)} pots"
    assert len(pots) <= 1 + len(all_in_totals)
    for below, above in itertools.pairwise(pots):
        assert set(above.eligible) < set(below.eligible), "each side pot is contested by fewer players"
        # Only an all-in ends a pot: whoever cannot contest the next pot is all-in.
        assert set(below.eligible) - set(above.eligible) <= all_in


@settings(max_examples=EXAMPLES, deadline=None)
@given(contributions=st.lists(st.integers(0, 60), min_size=2, max_size=8), data=st.data())
def test_build_pots_cuts_only_at_all_in_totals(contributions: list[int], data: st.DataObject) -> None:
    from engine.pots import build_pots

    n = len(contributions)
    live = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="live")
    top = max(contributions)
    if top == 0 or not any(lv and c == top for lv, c in zip(live, contributions)):
        return  # uncalled chips are returned first: a live player always reaches the top
    # A live player below the top is all-in (else they would have called); at the top, either.
    all_in = [lv and (c < top or data.draw(st.booleans(), label="all-in")) for lv, c in zip(live, contributions)]
    pots = build_pots(contributions=contributions, live=live, all_in=all_in)
    assert sum(p.amount for p in pots) == sum(contributions)
    cuts = {c for c, a in zip(contributions, all_in) if a and 0 < c < top}
    if not cuts:
        assert [p.eligible for p in pots] == [tuple(i for i in range(n) if live[i] and contributions[i] == top)]
    assert len(pots) <= 1 + len(cuts)
    for pot in pots:
        assert pot.eligible and all(live[s] for s in pot.eligible)
    for below, above in itertools.pairwise(pots):
        assert set(above.eligible) < set(below.eligible)
        assert all(all_in[s] for s in set(below.eligible) - set(above.eligible))
