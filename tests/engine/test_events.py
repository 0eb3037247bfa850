"""The events a hand emits: what the bot renders and stores, in order."""

from __future__ import annotations

from helpers import make_hand, play

from engine.events import (
    ActionTaken,
    AntePosted,
    BettingBegan,
    CardDealt,
    HandEnded,
    HandShown,
    PotAwarded,
    StreetBegan,
    UncalledReturned,
)

CARDS = {"ann": "Ah 3c 6d 6h 2s 8d Jc", "bob": "Qd Qs 2c Td 7s Ts 5c"}


def test_a_hand_tells_everything_in_order() -> None:
    hand = make_hand(CARDS)
    kinds = [type(e).__name__ for e in hand.events]
    assert kinds[:3] == ["AntePosted", "AntePosted", "StreetBegan"]
    dealt = [e for e in hand.events if isinstance(e, CardDealt)]
    assert [(e.seat, str(e.card), e.face_up) for e in dealt] == [
        (0, "Ah", False), (1, "Qd", False), (0, "3c", False), (1, "Qs", False), (0, "6d", True), (1, "2c", True),
    ]
    assert isinstance(hand.events[-1], BettingBegan) and hand.events[-1].first == 1
    play(hand, "bring-in", "call", "bet", "call", *["check"] * 6)
    assert hand.is_over
    taken = [e for e in hand.events if isinstance(e, ActionTaken)]
    assert [(e.street, e.seat, e.action.value, e.amount, e.total) for e in taken[:4]] == [
        (3, 1, "bring-in", 2, 2), (3, 0, "call", 2, 2), (4, 0, "bet", 5, 5), (4, 1, "call", 5, 5),
    ]
    seventh = [e for e in hand.events if isinstance(e, CardDealt) and e.street == 7]
    assert [e.face_up for e in seventh] == [False, False]
    assert [e.street for e in hand.events if isinstance(e, StreetBegan)] == [3, 4, 5, 6, 7]
    shown = [e for e in hand.events if isinstance(e, HandShown)]
    assert [(e.seat, e.high.name) for e in shown] == [(1, "two pair, queens and tens"), (0, "pair of sixes")]
    assert shown[1].low is not None and shown[1].low.name == "8-6-3-2-A low"
    awarded = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [(e.amount, e.high, e.low, dict(e.shares)) for e in awarded] == [(16, (1,), (0,), {1: 8, 0: 8})]
    assert isinstance(hand.events[-1], HandEnded) and hand.events[-1].stacks == (100, 100)
    assert sum(isinstance(e, AntePosted) for e in hand.events) == 2
    assert not any(isinstance(e, UncalledReturned) for e in hand.events)


def test_down_cards_are_marked_private() -> None:
    hand = make_hand(CARDS)
    play(hand, "bring-in", "call", *["check"] * 8)
    for seat in range(2):
        down = {str(c) for c in hand.down_cards(seat)}
        up = {str(c) for c in hand.up_cards(seat)}
        dealt = [e for e in hand.events if isinstance(e, CardDealt) and e.seat == seat]
        assert {str(e.card) for e in dealt if not e.face_up} == down
        assert {str(e.card) for e in dealt if e.face_up} == up
        assert len(down) == 3 and len(up) == 4
