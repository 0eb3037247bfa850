"""A finished hand in PHH, the open Poker Hand History format (TOML): variant ``F7S/8`` (Stud
Hi-Lo), ``F7S`` (Stud) or ``FR`` (Razz), the game of the hand (GAMES.md G9).

Fixed-limit seven card stud as the PHH specification writes it: ``antes`` (one per
player), ``bring_in``, ``small_bet``, ``big_bet``, ``starting_stacks`` and ``actions``,
with the optional ``players``, ``seats`` and ``seat_count``, ``hand``, ``table``, date,
``time`` and ``time_zone``,
``finishing_stacks`` and ``ante_trimming_status = true`` (rule 3: a short ante is all-in,
and what nobody matched goes back, rule 13).

Actions: ``d dh p1 ????Ac`` deals third street (down cards nobody may see are ``??``:
the viewer's own are written), ``d dh p1 7h`` each later street, ``d db 9c`` the
seventh-street community card (rule 10), ``p1 pb`` the bring-in, ``p1 cbr 5`` a complete,
bet or raise *to* 5 (Stud's double bet, ``bet-big`` / ``raise-big``, too: G5), ``p1 cc`` check
or call, ``p1 f`` fold, and ``p1 sm <cards>`` each
hand shown at the showdown (rule 15 order), all of the player's own cards in dealt order;
when the betting ends early because at most one player can still bet, the hands are tabled
then (the cards so far), the rest are dealt face up, and the whole hands shown at the end.

PokerKit (0.7.x) replays ``F7S/8`` and ``FR`` hands as we play them (but for the differences
RULES.md lists). Its ``F7S`` has no open-pair option (G5): a Stud hand in which somebody made
the double bet is still written as played (``cbr`` to the big bet on fourth street, a valid
PHH action), but PokerKit refuses that action, so only a Stud hand without a double bet
(:func:`pokerkit_replayable`) claims to replay in PokerKit to the same stacks.

>>> from datetime import datetime, timezone
>>> from engine import Hand, ScriptedDealer, Stakes, parse_cards
>>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50], dealer=ScriptedDealer(
...     cards=[parse_cards("Ah 2h 3h"), parse_cards("Kc Kd 2c")]))
>>> hand.act("bring-in"); hand.act("complete"); hand.act("fold")
>>> meta = HandMeta(number=7, table="Home", played_at=datetime(2026, 1, 5, 3, 4, 5, tzinfo=timezone.utc),
...                 viewer="ann")
>>> print(phh_text(hand, meta))
variant = "F7S/8"
ante_trimming_status = true
antes = [1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [50, 50]
actions = [
  "d dh p1 Ah2h3h",
  "d dh p2 ????2c",
  "p2 pb",
  "p1 cbr 5",
  "p2 f",
]
players = ["ann", "bob"]
seats = [1, 2]
seat_count = 8
finishing_stacks = [53, 47]
hand = 7
table = "Home"
day = 5
month = 1
year = 2026
time = 03:04:05
time_zone = "UTC"
"""

from __future__ import annotations

import json
from datetime import UTC

from bot.history.exports.common import HandMeta, check_finished, seat_numbers, viewer_seat, written_names
from engine import Action, Card, Hand
from engine.events import ActionTaken, BettingBegan, CardDealt, CommunityCardDealt, Event, HandShown, StreetBegan
from engine.games import Game

VARIANT = "F7S/8"
VARIANTS = {Game.STUD8: VARIANT, Game.STUD: "F7S", Game.RAZZ: "FR"}
"""The PHH variant code of each game (G9)."""
_VERB = {
    Action.BRING_IN: "pb", Action.COMPLETE: "cbr", Action.BET: "cbr", Action.RAISE: "cbr",
    Action.BET_BIG: "cbr", Action.RAISE_BIG: "cbr", Action.CALL: "cc", Action.CHECK: "cc", Action.FOLD: "f",
}


def pokerkit_replayable(hand: Hand) -> bool:
    """False for a Stud hand with a double bet (``bet-big``/``raise-big``, G5), which PokerKit's
    ``F7S`` (no open-pair option) refuses; True for every other hand.

    >>> from engine import Hand, ScriptedDealer, Stakes, parse_cards
    >>> from engine.games import Game
    >>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[50, 50], game=Game.STUD,
    ...             dealer=ScriptedDealer(cards=[parse_cards("Ah 2h 3h 3c"), parse_cards("Kc Kd 2c 2d")]))
    >>> hand.act("bring-in"); hand.act("call"); hand.act("bet-big"); hand.act("fold")
    >>> pokerkit_replayable(hand)
    False
    """
    return not any(isinstance(e, ActionTaken) and e.action in (Action.BET_BIG, Action.RAISE_BIG)
                   for e in hand.events)


def _cards(cards: list[Card] | tuple[Card, ...]) -> str:
    return "".join(map(str, cards))


def phh_actions(hand: Hand, viewer: int | None) -> list[str]:
    """The ``actions`` list: dealings, decisions and the showdown, in the order they happened."""
    return [text for text, _ in phh_steps(hand, viewer)]


def phh_steps(hand: Hand, viewer: int | None) -> list[tuple[str, Event]]:
    """Each PHH action with the engine event it writes (the door card's event for a third-street dealing).

    When the betting ends before seventh street because at most one player can still bet
    (rule 13), the hands are tabled as the betting ends, before the rest of the cards are
    dealt (PokerKit holds a showdown there), and shown whole again at the end.
    """
    actions: list[tuple[str, Event]] = []
    third: dict[int, list[str]] = {}
    betting = {e.street for e in hand.events if isinstance(e, BettingBegan)}
    run_out = min((e.street for e in hand.events if isinstance(e, StreetBegan)
                   and e.street > 3 and e.street not in betting), default=None)
    tabled = run_out - 1 if run_out is not None else 7  # cards each player holds when the hands are shown
    shown_events = [e for e in hand.events if isinstance(e, HandShown)]
    showing = {e.seat for e in shown_events}
    tabling = [(f"p{e.seat + 1} sm {_cards(e.cards[:tabled])}", e) for e in shown_events]
    for event in hand.events:
        if isinstance(event, StreetBegan) and event.street == run_out:
            actions.extend(tabling)
        elif isinstance(event, CardDealt):
            # After the hands are tabled, every card dealt to a player who showed is seen.
            seen = event.face_up or event.seat == viewer or (run_out is not None and event.street >= run_out
                                                             and event.seat in showing)
            text = str(event.card) if seen else "??"
            if event.street == 3:
                third.setdefault(event.seat, []).append(text)
                if len(third[event.seat]) == 3:  # door card dealt: write the player's three cards at once
                    actions.append((f"d dh p{event.seat + 1} {''.join(third[event.seat])}", event))
            else:
                actions.append((f"d dh p{event.seat + 1} {text}", event))
        elif isinstance(event, CommunityCardDealt):
            actions.append((f"d db {event.card}", event))
        elif isinstance(event, ActionTaken):
            verb = _VERB[event.action]
            player = f"p{event.seat + 1}"
            actions.append((f"{player} cbr {event.total}" if verb == "cbr" else f"{player} {verb}", event))
    actions.extend((f"p{e.seat + 1} sm {_cards(e.cards)}", e) for e in shown_events)
    return actions


def phh_text(hand: Hand, meta: HandMeta) -> str:
    """The PHH (TOML) text of one finished hand, seen from ``meta.viewer``."""
    check_finished(hand)
    viewer = viewer_seat(hand, meta)
    names = written_names(hand, meta)
    stakes = hand.stakes
    when = meta.played_at.astimezone(UTC)
    n = hand.seat_count
    lines = [
        f'variant = "{VARIANTS[hand.game]}"',
        "ante_trimming_status = true",
        f"antes = {_list([stakes.ante] * n)}",
        f"bring_in = {stakes.bring_in}",
        f"small_bet = {stakes.small_bet}",
        f"big_bet = {stakes.big_bet}",
        f"starting_stacks = {_list(hand.starting_stacks)}",
        "actions = [",
        *(f"  {json.dumps(a)}," for a in phh_actions(hand, viewer)),
        "]",
        f"players = [{', '.join(json.dumps(name, ensure_ascii=False) for name in names)}]",
        f"seats = {_list(seat_numbers(hand, meta))}",
        "seat_count = 8",
        f"finishing_stacks = {_list(hand.stacks)}",
        f"hand = {meta.number}",
        f"table = {json.dumps(meta.table, ensure_ascii=False)}",
        f"day = {when.day}",
        f"month = {when.month}",
        f"year = {when.year}",
        f"time = {when:%H:%M:%S}",
        'time_zone = "UTC"',
    ]
    return "\n".join(lines)


def _list(values: list[int] | tuple[int, ...]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"
