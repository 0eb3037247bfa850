"""Hands for the replayer page's tests (tests/app/test_replayer_page.py, tests/e2e/test_replayer_browser.py),
and what a reader of the page may and may not find in it.

Two scripted hands, played by the engine: a three-way hand where cat folds on fourth street and the
other two split the pot at the showdown (high and low), and a four-way hand where dan folds on third
street and three players are all in by fourth street (a side pot; the hands go face up).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from helpers import make_hand

from bot.core.i18n import EN, Translator
from bot.history.replayer import ReplayHand, replay_page
from bot.text import results
from engine import Action, Hand
from engine.events import ActionTaken, AntePosted, CardDealt, HandShown, StreetBegan, UncalledReturned

CARD = re.compile(r"[2-9TJQKA][cdhs]")


def _play(hand: Hand, choose: Any) -> Hand:
    for _ in range(200):
        if hand.is_over:
            return hand
        legal = hand.legal_actions()
        hand.act(choose(hand, legal))
    raise AssertionError("the hand did not end")


def split_hand() -> Hand:
    """ann (low) and bob (high) split at the showdown; cat folds to ann's bet on fourth street."""
    hand = make_hand({"ann": "Ah 2h 3h 4s 7c 9d Kh", "bob": "Kc Kd 2c 7d Qs Js 6s",
                      "cat": "8c 9c Td Jd 8s Tc 3c"})

    def choose(hand: Hand, legal: tuple[Action, ...]) -> Action:
        if hand.actor_name == "cat" and hand.street >= 4 and Action.FOLD in legal:
            return Action.FOLD
        if hand.actor_name == "ann" and hand.street == 4 and Action.BET in legal:
            return Action.BET
        for action in (Action.BRING_IN, Action.CALL, Action.CHECK):
            if action in legal:
                return action
        raise AssertionError(legal)

    return _play(hand, choose)


def all_in_hand() -> Hand:
    """bob (30) and cat (60) all in against ann (100) by fourth street; dan folds on third."""
    hand = make_hand({"ann": "Ah 2h 3h 4s 5c 9d Kh", "bob": "Kc Kd 2c 7c Qs Js 6s",
                      "cat": "8c 9c Td Jd 8s Tc 3c", "dan": "Qh Qd 4d 6d 6h 5s 2s"},
                     stacks={"ann": 100, "bob": 30, "cat": 60, "dan": 100})

    def choose(hand: Hand, legal: tuple[Action, ...]) -> Action:
        if hand.actor_name == "dan" and Action.FOLD in legal:
            return Action.FOLD
        for action in (Action.BRING_IN, Action.RAISE, Action.BET, Action.COMPLETE, Action.CALL, Action.CHECK):
            if action in legal:
                return action
        raise AssertionError(legal)

    return _play(hand, choose)


@dataclass(frozen=True)
class FakeEquity:
    """What ``engine.equity.all_in_equity`` gives, for the page's equity line (made-up numbers)."""

    equity: Mapping[str, float]
    scoop: Mapping[str, float]


def fake_equity(hand: Hand) -> dict[int, FakeEquity]:
    live = [hand.names[s] for s in hand.live_seats]
    shares = [0.61, 0.27, 0.12, 0.0, 0.0][:len(live)]
    return {street: FakeEquity(equity=dict(zip(live, shares, strict=True)), scoop={live[0]: 0.4})
            for street in (4, 5, 6)}


def page_of(hand: Hand, *, viewer: str | None, tr: Translator = EN, equity: Any = None, number: int = 1) -> str:
    seats = tuple(range(1, hand.seat_count + 1))
    return replay_page([ReplayHand(number=number, hand=hand, seats=seats, viewer=viewer)], tr=tr, equity=equity)


def data_of(page: str) -> dict[str, Any]:
    """The page's data, as its script reads it."""
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert match is not None
    parsed: dict[str, Any] = json.loads(match.group(1))
    return parsed


def down_cards(hand: Hand, name: str) -> list[str]:
    seat = hand.names.index(name)
    return [str(e.card) for e in hand.events if isinstance(e, CardDealt) and e.seat == seat and not e.face_up]


def shown(hand: Hand) -> set[str]:
    return {hand.names[e.seat] for e in hand.events if isinstance(e, HandShown)}


def hidden_cards(hand: Hand, viewer: str | None) -> set[str]:
    """The down cards the viewer never saw: everyone else's that were not shown at the showdown."""
    return {card for name in hand.names if name != viewer and name not in shown(hand)
            for card in down_cards(hand, name)}


def pretty(card: str) -> str:
    from engine import Card
    return Card.from_str(card).pretty


def leaks(page: str, hand: Hand, viewer: str | None) -> list[str]:
    """Every unseen card found anywhere in the page's source, in any spelling ('Qh', 'Q♥')."""
    found = []
    for card in sorted(hidden_cards(hand, viewer)):
        if re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", page) or pretty(card) in page:
            found.append(card)
    return found


def expected_frames(hand: Hand, viewer: str | None) -> list[dict[str, Any]]:
    """What each step of the page must show, worked out from the hand's events on their own: each seat's
    cards as the viewer saw them (None: a card's back) and the pot after the street's betting."""
    me = hand.names.index(viewer) if viewer in hand.names else None
    shows = {e.seat for e in hand.events if isinstance(e, HandShown)}
    bet_streets = {e.street for e in hand.events if isinstance(e, ActionTaken)}
    dealt = [e.street for e in hand.events if isinstance(e, StreetBegan)]
    run_out = bool(shows) and len(shows) > 1 and dealt[-1] not in bet_streets
    face_up_from = max([s for s in dealt if s in bet_streets], default=3) if run_out else 99
    frames: list[dict[str, Any]] = []
    cards: list[list[str]] = [[] for _ in hand.names]
    pot, street = 0, 0

    def snap(*, final: bool = False) -> None:
        seen = []
        for seat in range(hand.seat_count):
            up = final or street >= face_up_from
            seen.append([c if i in (2, 3, 4, 5) or seat == me or (up and seat in shows) else None
                         for i, c in enumerate(cards[seat])])
        frames.append({"street": street, "cards": seen, "pot": pot, "final": final})

    for event in hand.events:
        if isinstance(event, StreetBegan):
            snap()
            street = event.street
        elif isinstance(event, CardDealt):
            cards[event.seat].append(str(event.card))
        elif isinstance(event, AntePosted | ActionTaken):
            pot += event.amount
        elif isinstance(event, UncalledReturned):
            pot -= event.amount
        elif isinstance(event, HandShown):
            break
    snap()
    snap(final=True)
    return frames


def pot_lines(hand: Hand) -> list[str]:
    return results.pot_lines(EN, hand, list(hand.names))


def nets(hand: Hand) -> dict[str, int]:
    return {name: hand.stacks[s] - hand.starting_stacks[s] for s, name in enumerate(hand.names)}
