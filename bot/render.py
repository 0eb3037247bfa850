"""Platform-neutral text: the public board, the private view, actions and the showdown.

Nothing here ever puts a down card into public text: the public functions read
only up cards (and cards shown at the showdown).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Action, Card, Hand, best_high, best_low
from engine.cards import RANK_NAMES, RANK_PLURALS
from engine.events import (
    ActionTaken,
    CommunityCardDealt,
    Event,
    HandShown,
    PotAwarded,
    StreetBegan,
    UncalledReturned,
)
from engine.order import board_key
from engine.pots import build_pots

from .model import Table
from .ports import Button

BACK = "🂠"
STREETS = {3: "third street", 4: "fourth street", 5: "fifth street", 6: "sixth street", 7: "seventh street"}
_VERB = {
    Action.BRING_IN: "brings in", Action.COMPLETE: "completes to", Action.BET: "bets", Action.RAISE: "raises to",
    Action.CALL: "calls", Action.CHECK: "checks", Action.FOLD: "folds",
}


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(c.pretty for c in cards)


def chips(n: int) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"


def stakes_text(table: Table) -> str:
    s = table.stakes
    return f"ante {s.ante}, bring-in {s.bring_in}, bets {s.small_bet}/{s.big_bet}, timer {table.timer}s"


def pots_text(hand: Hand) -> str:
    """'Pot 53 (main 33, side 20)': the chips in the middle, side pots once someone is all-in.

    Bets of the round in progress are shown in front of each player, not in the pot.
    """
    middle = [c - (0 if hand.is_over else b) for c, b in zip(hand.contributed, hand.round_bets, strict=True)]
    total = sum(middle)
    if not any(hand.is_all_in(s) for s in range(hand.seat_count)):
        return f"Pot {total}"
    amounts: list[int] = []
    last: tuple[int, ...] | None = None
    for pot in build_pots(contributions=middle, live=[not f for f in hand.folded]):
        if pot.eligible == last:
            amounts[-1] += pot.amount
        else:
            amounts.append(pot.amount)
        last = pot.eligible
    if len(amounts) <= 1:
        return f"Pot {total}"
    return f"Pot {total} (main {amounts[0]}, " + ", ".join(f"side {a}" for a in amounts[1:]) + ")"


def action_options(hand: Hand) -> list[tuple[Action, str]]:
    """The legal actions with their labels: 'Call 5', 'Raise to 10', 'Bring-in 2'."""
    out = []
    for action in hand.legal_actions():
        if action in (Action.CHECK, Action.FOLD):
            label = action.value.capitalize()
        elif action in (Action.RAISE, Action.COMPLETE):
            label = f"{action.value.capitalize()} to {hand.total_after(action)}"
        else:
            label = f"{action.value.capitalize()} {hand.amount_of(action)}"
        out.append((action, label))
    return out


def board(table: Table, hand: Hand | None, *, names: Sequence[str], turn: str | None,
          seconds_left: int | None) -> tuple[str, tuple[Button, ...]]:
    """The public board and its buttons. ``names`` are the hand's players in seat order."""
    lines = [f"Stud Hi-Lo · {stakes_text(table)}"]
    if hand is None:
        seated = ", ".join(f"{s.name} {s.stack}" + (" (out)" if s.sitting_out else "")
                           for _, s in sorted(table.seats.items())) or "nobody yet"
        lines.append(f"Seats: {seated}")
        lines.append("Type 'join' to sit down" + (", 'start' to deal." if not table.running else "."))
        return "\n".join(lines), (Button("Join", "join"),)
    street = "showdown" if hand.is_over else STREETS[hand.street]
    lines[0] = f"Hand #{table.hand_no} · {street} · {stakes_text(table)}"
    lines.append(pots_text(hand))
    width = max(len(n) for n in names)
    for seat, name in enumerate(names):
        cards = hand.cards[seat]
        shown = [c.pretty if i in (2, 3, 4, 5) else BACK for i, c in enumerate(cards)]
        state = []
        if hand.folded[seat]:
            state.append("folded")
        elif hand.is_all_in(seat):
            state.append("all-in")
        if hand.round_bets[seat] and not hand.is_over:
            state.append(f"bet {hand.round_bets[seat]}")
        marker = "→" if hand.actor == seat else " "
        row = f"{marker} {name:<{width}} {hand.stacks[seat]:>5}  {' '.join(shown):<20} {' · '.join(state)}"
        lines.append(row.rstrip())
    if hand.community is not None:
        lines.append(f"Community card: {hand.community.pretty}")
    buttons: list[Button] = []
    if hand.actor is not None and turn is not None:
        options = action_options(hand)
        clock = f" ({seconds_left}s)" if seconds_left is not None else ""
        lines.append(f"{names[hand.actor]} to act{clock}: " + " · ".join(label.lower() for _, label in options))
        buttons = [Button(label, f"{action.value} @{turn}") for action, label in options]
    buttons += [Button("Join", "join"), Button("My cards", "cards")]
    return "\n".join(lines), tuple(buttons)


def private_view(hand: Hand, seat: int, *, hand_no: int) -> str:
    """A player's own cards (down ones in brackets) with their best high and low so far."""
    cards = hand.cards[seat]
    parts = [f"[{c.pretty}]" if i in (0, 1, 6) else c.pretty for i, c in enumerate(cards)]
    text = f"Hand #{hand_no}, your cards: {' '.join(parts)}"
    if hand.community is not None:
        text += f" + community {hand.community.pretty}"
    return f"{text}\n{strength(hand.all_cards(seat))}"


def strength(cards: Sequence[Card]) -> str:
    """'High: two pair, queens and tens · Low: 8-6-3-2-A' (or the draw so far)."""
    low_ranks = sorted({c.low_rank for c in cards if c.low_rank <= 8}, reverse=True)
    draw = f"{len(low_ranks)} to a low ({'-'.join('A' if r == 1 else str(r) for r in low_ranks)})" \
        if low_ranks else "no low cards"
    if len(cards) >= 5:
        high = best_high(cards).name
        low = best_low(cards)
        low_text = low.name if low else (draw if len(cards) < 7 else "none")
    else:
        groups, ranks = board_key(cards)
        top = ranks[0]
        if groups[0] == 4:
            high = f"four {RANK_PLURALS[top]}"
        elif groups[0] == 3:
            high = f"three {RANK_PLURALS[top]}"
        elif groups[:2] == (2, 2):
            high = f"two pair, {RANK_PLURALS[top]} and {RANK_PLURALS[ranks[1]]}"
        elif groups[0] == 2:
            high = f"pair of {RANK_PLURALS[top]}"
        else:
            high = f"{RANK_NAMES[top]} high"
        low_text = draw
    return f"High: {high} · Low: {low_text}"


def describe(events: Sequence[Event], hand: Hand, names: Sequence[str]) -> list[str]:
    """Public lines for new events: actions, new streets with the up cards, returns, showdown."""
    lines: list[str] = []
    for event in events:
        if isinstance(event, ActionTaken):
            verb = _VERB[event.action]
            if event.action in (Action.CHECK, Action.FOLD):
                text = f"{names[event.seat]} {verb}"
            elif event.action in (Action.RAISE, Action.COMPLETE):
                text = f"{names[event.seat]} {verb} {event.total}"
            else:
                text = f"{names[event.seat]} {verb} {event.amount}"
            if event.all_in:
                text += " (all-in)"
            lines.append(text)
        elif isinstance(event, StreetBegan) and event.street == 3:
            doors = [f"{names[s]} {hand.cards[s][2].pretty}" for s in range(hand.seat_count) if len(hand.cards[s]) > 2]
            lines.append(f"Door cards: {', '.join(doors)}")
        elif isinstance(event, StreetBegan):
            ups = [f"{names[s]} {hand.cards[s][event.street - 1].pretty}" for s in hand.live_seats
                   if len(hand.cards[s]) >= event.street and event.street <= 6]
            lines.append(f"{STREETS[event.street].capitalize()}" + (f": {', '.join(ups)}" if ups else " (down cards)"))
        elif isinstance(event, CommunityCardDealt):
            lines.append(f"Not enough cards: {event.card.pretty} is everyone's seventh card")
        elif isinstance(event, UncalledReturned):
            lines.append(f"{chips(event.amount)} uncalled back to {names[event.seat]}")
        elif isinstance(event, HandShown):
            low = event.low
            lines.append(f"{names[event.seat]} shows {cards_text(event.cards)}: {event.high.name}; "
                         + (f"low {low.name.removesuffix(' low')}" if low else "no low"))
        elif isinstance(event, PotAwarded):
            label = "Pot" if event.index == 0 else f"Side pot {event.index}"
            if not event.low and len(event.high) == 1 and len(event.shares) == 1:
                lines.append(f"{label} {event.amount}: {names[event.high[0]]} wins {event.amount}")
            else:
                who = ", ".join(f"{names[s]} {c}" for s, c in sorted(event.shares.items()))
                halves = f"high {'/'.join(names[s] for s in event.high)}"
                halves += f", low {'/'.join(names[s] for s in event.low)}" if event.low else ", no low"
                lines.append(f"{label} {event.amount} ({halves}): {who}")
    return lines
