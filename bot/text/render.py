"""Platform-neutral text: the public board, the private view, actions and the showdown.

Nothing here ever puts a down card into public text: the public functions read
only up cards (and cards shown at the showdown). Every function takes the
translator of the language to write in (``tr``, English by default).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

from bot.core.i18n import EN, Translator, family
from bot.core.model import MIX, Table
from bot.core.names import pad, width
from bot.core.ports import Button
from bot.text import handnames, results
from bot.text.results import game_name
from engine import ALL_CARDS, Action, Card, Hand
from engine.equity import Equity
from engine.events import (
    ActionTaken,
    AntePosted,
    BettingBegan,
    CardDealt,
    CommunityCardDealt,
    Event,
    HandEnded,
    HandShown,
    PotAwarded,
    StreetBegan,
    UncalledReturned,
)
from engine.games import Game
from engine.pots import build_pots

BACK = "🂠"
STREETS = family("street", [3, 4, 5, 6, 7, "showdown"])
_DID = family("did", [a.value for a in Action])
_LABEL = family("label", [a.value for a in Action])
_DID_KEY: Final = {a: _DID[a.value] for a in Action}
_LABEL_KEY: Final = {a: _LABEL[a.value] for a in Action}
PRETTY: Final = tuple(card.pretty for card in sorted(ALL_CARDS, key=lambda c: c.index))
"""Each card's face (``Card.pretty``) by ``Card.index``: a board shows dozens of cards."""
_BACKS: Final = (BACK,) * len(PRETTY)
_BRACKETED: Final = tuple(f"[{face}]" for face in PRETTY)
_PUBLIC: Final = (_BACKS, _BACKS, PRETTY, PRETTY, PRETTY, PRETTY, _BACKS)
"""How everyone sees each of a seat's cards, in dealing order: the first two and the seventh face down."""
_PRIVATE: Final = (_BRACKETED, _BRACKETED, PRETTY, PRETTY, PRETTY, PRETTY, _BRACKETED)
"""How their owner sees them: the down cards in brackets."""


def _in_order(cards: Sequence[Card], faces: Sequence[Sequence[str]]) -> str:
    """A seat's cards (seven at most) in dealing order, the n-th as ``faces[n]`` shows it
    (:data:`_PUBLIC`, :data:`_PRIVATE`)."""
    return " ".join([shown[card.index] for shown, card in zip(faces, cards)])


@dataclass(frozen=True, slots=True)
class _Words:
    """The board's words that never change in a language (a board is drawn a thousand times a second)."""

    folded: str
    all_in: str
    join: Button
    cards: Button


@cache
def _words(tr: Translator) -> _Words:
    return _Words(folded=tr("state.folded"), all_in=tr("state.all_in"), join=Button(tr("button.join"), "join"),
                  cards=Button(tr("button.cards"), "cards"))


def street_name(tr: Translator, street: int | str) -> str:
    """'third street' ... 'seventh street', or 'showdown'."""
    return tr(STREETS[str(street)])


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join([PRETTY[c.index] for c in cards])


def chips(n: int, tr: Translator = EN) -> str:
    """'1 chip', '5 chips'; '5 фишек', '2 żetony'."""
    return tr.n("chips", n)


def chips_field(n: int) -> Callable[[Translator], str]:
    """A message field that reads ``chips(n)`` in the reader's language, once it is known."""
    return lambda tr: chips(n, tr)


def seconds_text(delay: float) -> str:
    """A pause as a line says it: whole seconds, else as few digits as it takes (tests pause 0.5 s).

    >>> seconds_text(5.0), seconds_text(0.5)
    ('5', '0.5')
    """
    return f"{delay:g}"


def table_game_text(table: Table, tr: Translator = EN) -> str:
    """What the table deals (``config game=``): a game's name, or the mix with its count of hands.

    >>> from engine import Stakes
    >>> t = Table(id=1, platform="console", community="c", channel="c", creator="ann", stakes=Stakes(), timer=30,
    ...           game="mix", mix_hands=2)
    >>> table_game_text(t)
    'the stud mix (Razz, Stud, Stud Hi-Lo; 2 hands each)'
    """
    if table.game == MIX:
        return tr("game.mix_each", hands=tr.n("game.n_hands", table.mix_hands))
    return game_name(tr, Game.from_str(table.game))


def short_game_text(table: Table, tr: Translator = EN) -> str:
    """The table's game in a word or two: 'Razz', 'Stud Hi-Lo', 'Stud mix'."""
    return game_name(tr, table.game)


def idle_game_text(table: Table, tr: Translator = EN) -> str:
    """The game on a board between hands: the table's game, or on a mix table the game of the next hand."""
    if table.game == MIX:
        return tr("board.mix_next", game=game_name(tr, table.game_of_hand(table.hand_no + 1)))
    return game_name(tr, Game.from_str(table.game))


def stakes_text(table: Table, tr: Translator = EN) -> str:
    s = table.stakes
    return _stakes_text(tr, s.ante, s.bring_in, s.small_bet, s.big_bet, table.timer)


@lru_cache(maxsize=256)
def _stakes_text(tr: Translator, ante: int, bring_in: int, small: int, big: int, timer: int) -> str:
    """Remembered by language and amounts: every board shows them, a table seldom changes them."""
    return tr("stakes", ante=ante, bring_in=bring_in, small=small, big=big, timer=timer)


def pots_text(hand: Hand, tr: Translator = EN) -> str:
    """'Pot 53', or 'Pot 53 (main 33, side 1: 20)' once an all-in has made a side pot.

    Bets of the round in progress are shown in front of each player, not in the pot; a
    finished hand shows the pots it was settled with.
    """
    if hand.is_over:
        total = sum(hand.contributed)
        amounts = [pot.amount for pot in hand.pot_results]
    else:
        total = sum(hand.contributed) - sum(hand.round_bets)
        # all-in is having no chips left: without a stack at 0 nobody is (the usual case, one test)
        all_in = [hand.is_all_in(s) for s in range(hand.seat_count)] if 0 in hand.stacks else ()
        if any(all_in):
            middle = [c - b for c, b in zip(hand.contributed, hand.round_bets, strict=True)]
            pots = build_pots(contributions=middle, live=[not f for f in hand.folded], all_in=all_in)
            amounts = [pot.amount for pot in pots]
        else:
            amounts = [total]
    if len(amounts) <= 1:
        return tr("pot.total", total=total)
    parts = [tr("pot.main", amount=amounts[0])]
    parts += [tr("pot.side", index=i, amount=a) for i, a in enumerate(amounts[1:], start=1)]
    return tr("pot.split", total=total, parts=", ".join(parts))


def action_label(tr: Translator, hand: Hand, action: Action) -> str:
    """'Call 5', 'Raise to 10', 'Bring-in 2', 'Check'."""
    amount = hand.amount_of(action)
    return _label(tr, action, amount, _total_after(hand, amount))


def _total_after(hand: Hand, amount: int) -> int:
    """``hand.total_after(action)`` from ``amount``, the action's ``hand.amount_of``: what the player
    has in front of them this round once it is in (the engine's own sum, without a second
    ``amount_of``: half of what labelling the options cost)."""
    return 0 if hand.actor is None else hand.round_bets[hand.actor] + amount


@lru_cache(maxsize=1024)
def _label(tr: Translator, action: Action, amount: int, total: int) -> str:
    """Remembered by language, action and amounts: a table's stakes give a handful of labels."""
    return tr(_LABEL_KEY[action], amount=amount, total=total)


def action_options(hand: Hand, tr: Translator = EN) -> list[tuple[Action, str]]:
    """The legal actions with their labels: 'Call 5', 'Raise to 10', 'Bring-in 2'."""
    return [(action, action_label(tr, hand, action)) for action in hand.legal_actions()]


def board(table: Table, hand: Hand | None, *, names: Sequence[str], turn: str | None,
          seconds_left: int | None, tr: Translator = EN, bank_left: int | None = None,
          paused: str | None = None) -> tuple[str, tuple[Button, ...]]:
    """The public board and its buttons. ``names`` are the hand's players in seat order; ``bank_left``:
    the seconds left in the time bank of the player to act, once it runs; ``paused``: the line that says
    who paused the table and since when (its clocks stand still, ``seconds_left`` with them)."""
    stakes = stakes_text(table, tr)
    words = _words(tr)
    join = words.join
    if hand is None:
        lines = [tr("board.title_idle", game=idle_game_text(table, tr), stakes=stakes)] + ([paused] if paused else [])
        seated = ", ".join(tr("board.seat_out" if s.sitting_out else "board.seat", name=s.name, stack=s.stack)
                           for _, s in sorted(table.seats.items())) or tr("board.nobody")
        lines.append(tr("board.seats", seats=seated))
        lines.append(tr("board.hint_running" if table.running else "board.hint_idle"))
        return "\n".join(lines), (join,)
    street = street_name(tr, "showdown" if hand.is_over else hand.street)
    title = _title(tr, table.hand_no, hand.game, street, stakes)
    lines = [title] + ([paused] if paused else []) + [pots_text(hand, tr)]
    column = max(map(width, names))  # columns on screen: emoji are two, marks and controls none
    folded, bets, stacks, over, actor = hand.folded, hand.round_bets, hand.stacks, hand.is_over, hand.actor
    for seat, name in enumerate(names):
        state = words.folded if folded[seat] else words.all_in if hand.is_all_in(seat) else ""
        if bets[seat] and not over:
            bet = tr("state.bet", amount=bets[seat])
            state = f"{state} · {bet}" if state else bet
        marker = "→" if actor == seat else " "
        row = f"{marker} {pad(name, column)} {stacks[seat]:>5}  {_in_order(hand.cards[seat], _PUBLIC):<20} {state}"
        lines.append(row.rstrip())
    if hand.community is not None:
        lines.append(tr("board.community", card=PRETTY[hand.community.index]))
    buttons: list[Button] = []
    if hand.actor is not None and turn is not None:
        options = action_options(hand, tr)
        listed = " · ".join(label.lower() for _, label in options)
        if bank_left is not None:
            lines.append(tr("timebank.board_to_act", name=names[hand.actor], seconds=bank_left, options=listed))
        elif seconds_left is not None and paused:
            lines.append(tr("timebank.board_to_act_paused", name=names[hand.actor], seconds=seconds_left,
                            options=listed))
        elif seconds_left is not None:
            lines.append(tr("board.to_act_clock", name=names[hand.actor], seconds=seconds_left, options=listed))
        else:
            lines.append(tr("board.to_act", name=names[hand.actor], options=listed))
        buttons = [Button(label, f"{action.value} @{turn}") for action, label in options]
    buttons += [join, words.cards]
    return "\n".join(lines), tuple(buttons)


@lru_cache(maxsize=4096)
def _title(tr: Translator, no: int, game: Game, street: str, stakes: str) -> str:
    """The board's first line, 'Hand #12 · Razz · fourth street · ante 1, ...' (G8: it names the hand's game),
    remembered: drawn again at each action of a street (and tables deal hands of the same numbers), it is
    the longest line of the board to format."""
    return tr("board.title", no=no, game=game_name(tr, game), street=street, stakes=stakes)


def private_view(hand: Hand, seat: int, *, hand_no: int, tr: Translator = EN) -> str:
    """A player's own cards (down ones in brackets) with what matters in the hand's game so far: the high
    and the low (Stud Hi-Lo), the high (Stud), the ace-to-five low (Razz: '9-7-4-2-A', 'drawing to 7-4-2')."""
    parts = _in_order(hand.cards[seat], _PRIVATE)
    if hand.community is not None:
        text = tr("private.cards_community", no=hand_no, cards=parts, card=PRETTY[hand.community.index])
    else:
        text = tr("private.cards", no=hand_no, cards=parts)
    return f"{text}\n{strength(hand.all_cards(seat), tr, game=hand.game)}"


def strength(cards: Sequence[Card], tr: Translator = EN, *, game: Game = Game.STUD8) -> str:
    """'High: two pair, queens and tens · drawing to 8-5-3' (see :func:`~bot.text.handnames.low_status`);
    'High: ...' alone in Stud, the low alone in Razz."""
    return handnames.strength(tr, cards, game=game)


_UNSAID: Final = (CardDealt, BettingBegan, AntePosted, HandEnded)
"""Events with no public line (most of a hand's: each card dealt goes to its owner privately)."""


def equity_text(equity: Equity, tr: Translator = EN) -> str:
    """``ann 61% · bob 27% · cat 12%``, and for a game with a low ``· scoop ann 40%`` where someone may scoop.

    >>> equity_text(Equity(equity={"ann": 0.6149, "bob": 0.3851}, scoop={"ann": 0.4, "bob": 0.0}, exact=True,
    ...                    samples=1, std_error=0.0))
    'ann 61% · bob 39% · scoop: ann 40%'
    """
    shares = " · ".join(f"{name} {_percent(share)}" for name, share in equity.equity.items())
    scoops = [f"{name} {_percent(p)}" for name, p in equity.scoop.items()  # where it says more than the equity
              if 0.005 <= p < equity.equity.get(name, 0.0) - 0.005]
    return tr("line.equity_scoop", shares=shares, scoops=" · ".join(scoops)) if scoops else shares


def _percent(share: float) -> str:
    """A share as a whole percent; one under 1% that is not nothing says so (a 0.3% chance is a chance)."""
    return "<1%" if 0 < share < 0.005 else f"{round(share * 100)}%"


def _all_in_lines(equities: Mapping[int, Equity], street: int, hand: Hand, names: Sequence[str],
                  tr: Translator) -> list[str]:
    """Lines that come before a new ``street``'s line at an all-in (rule 13): the hands face up and their
    equity after the street the betting ended on, as the run-out begins."""
    first = min(equities)
    if street != first + 1:
        return []
    faces = [f"{names[s]} {cards_text(hand.cards[s][:first])}" for s in hand.live_seats]
    return [tr("line.all_in_up", hands=", ".join(faces)), tr("line.equity", street=street_name(tr, first),
                                                              shares=equity_text(equities[first], tr))]


def describe(events: Sequence[Event], hand: Hand, names: Sequence[str], tr: Translator = EN,
             equities: Mapping[int, Equity] | None = None) -> list[str]:
    """Public lines for new events: actions, new streets with the up cards, returns, showdown; at an all-in
    (``equities``, street -> equity after its cards: :func:`engine.equity.all_in_equity`), the hands face up
    as the run-out begins and each player's equity after each street."""
    lines: list[str] = []
    for event in events:
        if equities and isinstance(event, StreetBegan):
            lines += _all_in_lines(equities, event.street, hand, names, tr)
        if isinstance(event, ActionTaken):
            text = tr(_DID_KEY[event.action], name=names[event.seat], amount=event.amount, total=event.total)
            lines.append(tr("did.all_in", text=text) if event.all_in else text)
        elif isinstance(event, _UNSAID):
            continue
        elif isinstance(event, StreetBegan) and event.street == 3:
            doors = [f"{names[s]} {PRETTY[hand.cards[s][2].index]}" for s in range(hand.seat_count)
                     if len(hand.cards[s]) > 2]
            lines.append(tr("line.doors", cards=", ".join(doors)))
        elif isinstance(event, StreetBegan):
            ups = [f"{names[s]} {PRETTY[hand.cards[s][event.street - 1].index]}" for s in hand.live_seats
                   if len(hand.cards[s]) >= event.street and event.street <= 6]
            street = street_name(tr, event.street)
            street = street[:1].upper() + street[1:]
            lines.append(tr("line.street", street=street, cards=", ".join(ups)) if ups
                         else tr("line.street_down", street=street))
            if equities and event.street in equities and event.street > min(equities):
                lines.append(tr("line.equity", street=street_name(tr, event.street),
                                shares=equity_text(equities[event.street], tr)))
        elif isinstance(event, CommunityCardDealt):
            lines.append(tr("line.community", card=PRETTY[event.card.index]))
        elif isinstance(event, UncalledReturned):
            lines.append(tr("line.uncalled", chips=chips(event.amount, tr), name=names[event.seat]))
        elif isinstance(event, HandShown):
            low = event.low
            high = handnames.high_name(tr, event.high)
            if hand.game is Game.RAZZ and low:  # G7: the low alone
                lines.append(tr("line.shows_razz", name=names[event.seat], cards=cards_text(event.cards),
                                low=handnames.low_name(tr, low)))
            elif hand.game is Game.STUD:  # G6: the high alone; the game has no low to miss
                lines.append(tr("line.shows_high", name=names[event.seat], cards=cards_text(event.cards), high=high))
            elif low:
                lines.append(tr("line.shows", name=names[event.seat], cards=cards_text(event.cards), high=high,
                                low=handnames.low_name(tr, low)))
            else:
                lines.append(tr("line.shows_no_low", name=names[event.seat], cards=cards_text(event.cards), high=high))
        elif isinstance(event, PotAwarded):
            lines.append(results.pot_line(tr, event, index=event.index, hand=hand, names=names))
    return lines
