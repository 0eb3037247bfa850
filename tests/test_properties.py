"""Property tests: random tables, tiny stacks, random legal (and illegal) decisions.

After every hand: the chips add up, no stack is negative, no card was dealt twice,
the player to act always had a legal action, the hand ended, and replaying the
hand file it wrote gives the same result. Refused actions change nothing.
"""

from __future__ import annotations

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
    # The hand file it writes replays to the same result.
    text = json.dumps(hand_file_of(hand).to_dict())
    assert result_of(replay_hand(HandFile.from_json(text))) == result_of(hand)
