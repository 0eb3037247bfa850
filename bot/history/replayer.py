"""The replayer page (``replay N``, ``replay last N``, and beside every ``export``): one HTML file.

A single self-contained file (no network: its script, style and card pictures are inline; cards
are CSS boxes with inline SVG suits) that steps through a stored hand from the asker's seat,
street by street, forwards and backwards (buttons and the arrow keys): the seats and stacks,
the antes and bring-in, every action with its amount, each street's cards, the pot as it grows,
the showdown with its named hands and who won each half of each pot, and everyone's net.
A hand of Stud or Razz (GAMES.md) names its game in its title; its hands read as the game
reads them (Razz: the ace-to-five low, never a high; Stud: the high, never a low), and its
pots go whole to the best hand (bot.text.results).

What the file may hold is decided here, in Python, never left to the page's script: the data
written into the file holds only the cards the asker saw. The asker's own down cards; the up
cards; the hands shown at the showdown, from the moment betting ended at an all-in (rule 13,
two or more live hands: they are turned face up, and an equity line per street comes from
``engine.equity``). A folded player's down cards are never written
(nor an unshown winner's), so they are nowhere in the file.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from bot.core.i18n import Translator, family
from bot.text import handnames, render, results
from engine import Action, Card, Hand
from engine.equity import all_in_equity
from engine.evaluate import best_high
from engine.events import (
    ActionTaken,
    AntePosted,
    BettingBegan,
    CardDealt,
    CommunityCardDealt,
    HandEnded,
    HandShown,
    PotAwarded,
    StreetBegan,
    UncalledReturned,
)
from engine.games import Game, Scoring

log = logging.getLogger(__name__)

PAGE_BUDGET = 300_000
"""The most bytes the page of one hand may take (the tests hold it to this)."""
_TEMPLATE = Path(__file__).with_name("replayer.html")
_DATA_MARK = "/*DATA*/null"


class EquityLine(Protocol):
    """One street's equities as ``engine.equity`` computes them (name -> share of the pots, 0..1)."""

    @property
    def equity(self) -> Mapping[str, float]: ...
    @property
    def scoop(self) -> object: ...


EquityOf = Callable[[Hand], Mapping[int, EquityLine]]
"""``engine.equity.all_in_equity``: each street's equities (after its cards) at a hand's all-in."""


def engine_equity() -> EquityOf:
    """The engine's :func:`engine.equity.all_in_equity` (tests hand the page another)."""
    return all_in_equity


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayHand:
    """What the page needs of one stored hand (bot.history's ``StoredHand`` is one)."""

    number: int
    hand: Hand
    seats: tuple[int, ...]
    """Each player's table seat, from 1."""
    viewer: str | None
    """The engine name of the asker, if they played the hand."""
    result_lines: tuple[str, ...] | None = None
    """Lines telling the settlement instead of the replay's pot lines (hands settled under older
    pot rules); None: the replay's own."""
    nets: tuple[int, ...] | None = None
    name_game: bool = False
    """Name the hand's game in its title even when it is Stud Hi-Lo (a table that deals several games, G8);
    a hand of Stud or Razz is always named."""


def replay_page(hands: Sequence[ReplayHand], *, tr: Translator, equity: EquityOf | None = None) -> str:
    """The HTML page replaying ``hands`` (oldest first; a picker when several) in ``tr``'s language."""
    data = {"lang": tr.lang, "words": _words(tr), "hands": [hand_data(h, tr=tr, equity=equity) for h in hands]}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Inside <script>: no '</script' or '<!--' may end or bend it (a name could hold one); '<' occurs in JSON
    # only inside strings, where its escape reads the same.
    text = text.replace("<", "\\u003c")
    title = html.escape(tr("replay.title", no=hands[0].number) if len(hands) == 1
                        else tr("replay.title_many", first=hands[0].number, last=hands[-1].number))
    return _template().replace("<!--TITLE-->", title).replace("<!--LANG-->", tr.lang).replace(_DATA_MARK, text)


@cache
def _template() -> str:
    return _TEMPLATE.read_text(encoding="utf-8")


_PAGE_WORDS = family("replay", ("first", "prev", "next", "last", "pot", "bet", "folded", "all_in", "all_in_seat",
                                 "you", "equity", "net", "result", "keys", "hand", "step", "antes", "stack", "down",
                                 "won"))
"""The words the page's script shows, by the name it knows them by."""


def _words(tr: Translator) -> dict[str, str]:
    return {name: tr(key) for name, key in _PAGE_WORDS.items()}


def _card(card: Card, *, up: bool) -> dict[str, object]:
    return {"c": str(card), "up": up}


_BACK: dict[str, object] = {"c": None, "up": False}


def hand_data(replay: ReplayHand, *, tr: Translator, equity: EquityOf | None = None) -> dict[str, object]:
    """The page's data for one hand: its players, a frame per street, and the result.

    Only what the viewer saw goes in: an unshown down card is written as a card back."""
    hand = replay.hand
    names = list(hand.names)
    n = hand.seat_count
    me = names.index(replay.viewer) if replay.viewer in names else None
    shown = {e.seat: e for e in hand.events if isinstance(e, HandShown)}
    betting = {e.street for e in hand.events if isinstance(e, BettingBegan)}
    streets = [e.street for e in hand.events if isinstance(e, StreetBegan)]
    all_in_from = _all_in_street(streets, betting, shown)
    lines_of = _story_lines(hand, tr)
    eq = _equity_lines(hand, equity, names, tr) if all_in_from is not None else {}
    result_title = tr("story.showdown") if shown else tr("replay.result")
    won = [0] * n
    for award in hand.pot_results:
        for seat, chips in award.shares.items():
            won[seat] += chips
    ends = list(hand.stacks)
    if replay.nets is not None:  # settled under older pot rules: what each was paid then
        won = [max(0, net + hand.starting_stacks[s] - hand.stacks[s] + won[s]) for s, net in enumerate(replay.nets)]
        ends = [start + net for start, net in zip(hand.starting_stacks, replay.nets, strict=True)]

    stacks = list(hand.starting_stacks)
    pot = 0
    cards: list[list[Card]] = [[] for _ in range(n)]
    folded = [False] * n
    all_in = [False] * n
    frames: list[dict[str, object]] = []
    bets = [0] * n
    street = 0  # the antes
    said: list[str] = []
    community: Card | None = None

    def visible(seat: int, *, final: bool) -> list[dict[str, object]]:
        face_up = (final or (all_in_from is not None and street >= all_in_from)) and seat in shown
        out = []
        for i, card in enumerate(cards[seat]):
            up = i in (2, 3, 4, 5)
            out.append(_card(card, up=up) if up or seat == me or face_up else _BACK)
        return out

    def frame(*, final: bool = False) -> None:
        face_up = all_in_from is not None and street >= all_in_from
        title = (result_title if final else tr("replay.antes") if street == 0
                 else render.street_name(tr, street).capitalize())
        seats = []
        for s in range(n):
            mine = s == me or ((face_up or final) and s in shown)
            seen = [c for i, c in enumerate(cards[s]) if mine or i in (2, 3, 4, 5)]
            if community is not None and seen:
                seen = [*seen, community]
            seats.append({"cards": visible(s, final=final), "stack": ends[s] if final else stacks[s],
                          "bet": bets[s], "folded": folded[s], "won": won[s] if final else 0,
                          "all_in": all_in[s] and not folded[s],
                          "hand": _strength(tr, seen, hand.scoring) if seen and mine and not folded[s] else ""})
        frames.append({"title": title, "street": street, "log": list(said), "seats": seats, "pot": pot,
                       "community": str(community) if community is not None else None,
                       "face_up": face_up and not final, "final": final,
                       "equity": "" if final else eq.get(street, "")})

    for index, event in enumerate(hand.events):
        if isinstance(event, StreetBegan):
            frame()
            street, bets, said = event.street, [0] * n, []
        elif isinstance(event, AntePosted):
            stacks[event.seat] -= event.amount
            pot += event.amount
            all_in[event.seat] = event.all_in
        elif isinstance(event, CardDealt):
            cards[event.seat].append(event.card)
        elif isinstance(event, CommunityCardDealt):
            community = event.card
        elif isinstance(event, ActionTaken):
            stacks[event.seat] -= event.amount
            pot += event.amount
            bets[event.seat] += event.amount
            folded[event.seat] = folded[event.seat] or event.action is Action.FOLD
            all_in[event.seat] = event.all_in or all_in[event.seat]
        elif isinstance(event, UncalledReturned):
            stacks[event.seat] += event.amount
            pot -= event.amount
            if street:
                bets[event.seat] = max(0, bets[event.seat] - event.amount)
        elif isinstance(event, HandShown | PotAwarded | HandEnded):
            break
        said += lines_of[index]
    frame()
    said = [line for index, event in enumerate(hand.events) if isinstance(event, HandShown)
           for line in lines_of[index]]
    frame(final=True)
    title = tr("story.header", no=replay.number, ante=hand.stakes.ante, bring_in=hand.stakes.bring_in,
               small=hand.stakes.small_bet, big=hand.stakes.big_bet)
    if hand.game is not Game.STUD8 or replay.name_game:  # G8 (at a Stud Hi-Lo table, pages read as before)
        title = tr("result.story_header", game=results.game_name(tr, hand.game.value), header=title)
    return {"number": replay.number, "game": hand.game.value, "title": title,
            "players": [{"name": name, "seat": seat, "stack": hand.starting_stacks[s], "me": s == me}
                        for s, (name, seat) in enumerate(zip(names, replay.seats, strict=True))],
            "frames": frames, "result": _result(replay, tr, shown)}


def _strength(tr: Translator, cards: Sequence[Card], scoring: Scoring) -> str:
    """What a player's cards make so far, as the game reads them: Stud Hi-Lo's high and low line, Stud's
    high alone (G6), Razz's ace-to-five low alone (G7: its best five once there are five, else the
    different ranks held, ace low).

    >>> from engine import parse_cards
    >>> from bot.core.i18n import EN
    >>> _strength(EN, parse_cards("Kc Kd 2s"), Scoring.HIGH), _strength(EN, parse_cards("9c 4d Ah 4s"), Scoring.LOW)
    ('pair of kings', 'Low: 9-4-A')
    >>> _strength(EN, parse_cards("9c 4d Ah 4s 7h 2c"), Scoring.LOW)
    'Low: 9-7-4-2-A'
    """
    if scoring is Scoring.HI_LO:
        return handnames.strength(tr, cards)
    if scoring is Scoring.HIGH:
        return handnames.high_name(tr, best_high(cards)) if len(cards) >= 5 else handnames.partial_high(tr, cards)
    return results.razz_low_text(tr, cards)


def _all_in_street(streets: Sequence[int], betting: set[int], shown: Mapping[int, HandShown]) -> int | None:
    """The street after whose betting the live hands went face up (rule 13): the last street with a
    betting round when later streets were dealt without one (3 if none had one); None if none was."""
    if len(shown) < 2 or not streets or streets[-1] in betting:
        return None
    before = [s for s in streets if s in betting]
    return before[-1] if before else streets[0]


def _story_lines(hand: Hand, tr: Translator) -> list[list[str]]:
    """Each event's public lines (the ``hand N`` story's words), antes said as the antes."""
    names = list(hand.names)
    out: list[list[str]] = []
    for event in hand.events:
        if isinstance(event, AntePosted):
            text = f"{names[event.seat]} {tr('replay.ante_posted', amount=event.amount)}"
            out.append([tr("did.all_in", text=text) if event.all_in else text])
        elif isinstance(event, StreetBegan | CommunityCardDealt):
            out.append([])  # the street's cards are on the table, not in the log
        else:
            out.append(render.describe((event,), hand, names, tr))
    return out


def _percent(share: float) -> str:
    return f"{round(100 * share)}%"


def _equity_lines(hand: Hand, equity: EquityOf | None, names: Sequence[str], tr: Translator) -> dict[int, str]:
    """'ann 61% · bob 27% · cat 12%', and the scoop where it says something, for each street."""
    if equity is None:
        return {}
    try:
        computed = equity(hand)
    except Exception:  # a bug there must not cost the player their page: logged, and the page has no line
        log.exception("equity of an all-in failed; the replayer page goes without it")
        return {}
    lines = {}
    for street, line in computed.items():
        parts = [f"{name} {_percent(line.equity[name])}" for name in names if name in line.equity]
        scoop = line.scoop
        if isinstance(scoop, Mapping):
            parts += [f"{tr('replay.scoop')} {name} {_percent(float(scoop[name]))}" for name in names
                      if name in scoop and 0 < float(scoop[name]) < float(line.equity.get(name, 0))]
        elif isinstance(scoop, float | int) and 0 < scoop < 1:
            parts.append(f"{tr('replay.scoop')} {_percent(float(scoop))}")
        lines[int(street)] = " · ".join(parts)
    return lines


def _result(replay: ReplayHand, tr: Translator, shown: Mapping[int, HandShown]) -> dict[str, object]:
    hand = replay.hand
    names = list(hand.names)
    hands = []
    razz = hand.scoring is Scoring.LOW
    for seat, event in shown.items():
        low = event.low  # None in Stud (G6); the ace-to-five low in Razz (G7), which has no high
        hands.append({"name": names[seat], "cards": [str(c) for c in event.cards],
                      "high": "" if razz else handnames.high_name(tr, event.high),
                      "low": handnames.low_name(tr, low) if low is not None else ""})
    pots = list(replay.result_lines) if replay.result_lines is not None else results.pot_lines(tr, hand, names)
    nets = replay.nets if replay.nets is not None else tuple(
        hand.stacks[s] - hand.starting_stacks[s] for s in range(hand.seat_count))
    return {"showdown": bool(shown), "hands": hands, "pots": pots,
            "nets": [{"name": name, "net": net} for name, net in zip(names, nets, strict=True)],
            "community": str(hand.community) if hand.community is not None and shown else None}
