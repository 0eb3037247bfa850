"""Small builders for scripted hands: explicit cards, exact stacks."""

from __future__ import annotations

from engine import Hand, Options, ScriptedDealer, Stakes, parse_cards
from engine.events import ActionTaken, Event


def make_hand(
    cards: dict[str, str],
    *,
    stacks: dict[str, int] | int = 100,
    stakes: Stakes | None = None,
    options: Options | None = None,
    community: str | None = None,
) -> Hand:
    """A hand whose players (in seat order) get the listed cards in dealt order."""
    names = list(cards)
    stack_list = [stacks[n] if isinstance(stacks, dict) else stacks for n in names]
    dealer = ScriptedDealer(
        cards=[parse_cards(cards[n]) for n in names],
        community=parse_cards(community)[0] if community else None,
        names=names,
    )
    return Hand(stakes=stakes or Stakes(), options=options, names=names, stacks=stack_list, dealer=dealer)


def play(hand: Hand, *actions: str) -> Hand:
    """Act in order, each by whoever must act."""
    for action in actions:
        hand.act(action)
    return hand


def legal(hand: Hand) -> list[str]:
    return sorted(a.value for a in hand.legal_actions())


def stacks(hand: Hand) -> dict[str, int]:
    return dict(zip(hand.names, hand.stacks))


def taken(events: list[Event]) -> list[tuple[str, int]]:
    return [(e.action.value, e.amount) for e in events if isinstance(e, ActionTaken)]
