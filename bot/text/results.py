"""What a hand's pots came to, in players' words: the showdown's pot lines and ``history``.

One pot is "Pot 78"; "Main pot" and "Side pot 1", "Side pot 2" appear only when a hand
has several pots (side pots come only from all-ins). In Stud Hi-Lo a player who takes a
whole pot scoops it; a pot divided between a high and a low says who took which half and
with what. A pot of Stud (G6) or Razz (G7) goes whole to the best high or the best
ace-to-five low: its line says who wins it with what ('Pot 6: ann wins (7-5-3-2-A)'), or
who share it.

``history`` reads what each hand's summary kept when it was settled (:func:`summary_of`,
JSON): what each winner won from the pots and their net for the hand, who won the high and
the low, and the hand's game when it is not Stud Hi-Lo (a line names it then). Summaries
of hands stored before that (text such as ``"Bot2 +78"``) are shown as they were written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from bot.core.i18n import Translator, family
from bot.text import handnames
from engine import Card, Hand, best_high, best_low
from engine.games import Game, Scoring
from engine.lowball import best_razz

GAME_NAMES = family("gamename", ("stud8", "stud", "razz", "mix"))
"""A game's name in players' words (bot/locales/*/gamenames.po): the three games and the mix (G8)."""

NO_CHIPS_MOVED = "no chips moved"
"""The text summary kept, before summaries were JSON, for a hand in which nobody won anything."""


class Award(Protocol):
    """How one pot was divided: an engine ``PotResult`` or a ``PotAwarded`` event."""

    @property
    def amount(self) -> int: ...
    @property
    def eligible(self) -> tuple[int, ...]: ...
    @property
    def high(self) -> tuple[int, ...]: ...
    @property
    def low(self) -> tuple[int, ...]: ...
    @property
    def shares(self) -> Mapping[int, int]: ...


def game_name(tr: Translator, game: Game | str) -> str:
    """The name of ``game`` (a :class:`Game`, or ``'stud8'``, ``'stud'``, ``'razz'`` or ``'mix'``) in ``tr``'s language.

    >>> from bot.core.i18n import EN
    >>> game_name(EN, "stud8"), game_name(EN, "razz"), game_name(EN, "mix")
    ('Stud Hi-Lo', 'Razz', 'Stud mix')
    """
    return tr(GAME_NAMES[game.value if isinstance(game, Game) else str(game)])


def razz_low_text(tr: Translator, cards: Sequence[Card]) -> str:
    """A razz player's low so far (G7): 'Low: 7-5-3-2-A' from five cards on, else the different ranks
    held, ace low ('Low: 9-4-A').

    >>> from bot.core.i18n import EN
    >>> from engine import parse_cards
    >>> razz_low_text(EN, parse_cards("9c 4d Ah 4s")), razz_low_text(EN, parse_cards("9c 4d Ah 4s 7h 2c"))
    ('Low: 9-4-A', 'Low: 9-7-4-2-A')
    """
    if len(cards) >= 5:
        return tr("low.made", low=handnames.low_name(tr, best_razz(cards)))
    return tr("low.made", low=handnames.low_ranks(sorted({c.low_rank for c in cards}, reverse=True)))


def pot_label(tr: Translator, *, index: int, count: int) -> str:
    """'Pot' when the hand has one pot; else 'Main pot' (index 0), 'Side pot 1', 'Side pot 2'..."""
    if count <= 1:
        return tr("pot.label_only")
    return tr("pot.label_main") if index == 0 else tr("pot.label_side", index=index)


def _who(names: Sequence[str], seats: Sequence[int]) -> str:
    return "/".join(names[s] for s in seats)


def halves(tr: Translator, *, high: str, low: str) -> str:
    """'high Bot2, low Cat' or 'high Bot2, no low' (``low`` empty: no low qualified)."""
    return tr("line.halves", high=high, low=low) if low else tr("line.halves_no_low", high=high)


def pot_line(tr: Translator, award: Award, *, index: int, hand: Hand, names: Sequence[str],
             hands: bool = True) -> str:
    """One pot of a finished hand: uncontested, scooped, split high and low, or shared by ties.

    'Pot 78: Bot2 scoops (high: full house, kings full of sixes; low: 7-5-4-3-A)';
    'Main pot 33: Bot2 takes the high, 17 (...); Cat takes the low, 16 (7-5-4-3-A)'. Without
    ``hands`` (the showdown picture, which shows every hand beside its cards) the winning
    hands are not named again: 'Pot 78: Bot2 scoops'.
    """
    label = pot_label(tr, index=index, count=len(hand.pot_results))
    fields: dict[str, object] = {"label": label, "amount": award.amount}
    winners = sorted(award.shares)
    if len(award.eligible) == 1 or len(hand.live_seats) == 1:
        return tr("pot.uncontested", name=names[winners[0]], **fields)
    if hand.scoring is not Scoring.HI_LO:
        return _whole_pot_line(tr, award, hand=hand, names=names, hands=hands, fields=fields)

    def high_hand(seat: int) -> str:
        return handnames.high_name(tr, best_high(hand.all_cards(seat)))

    def low_hand(seat: int) -> str:
        low = best_razz(hand.all_cards(seat)) if hand.game is Game.RAZZ else best_low(hand.all_cards(seat))
        assert low is not None  # a seat that won a low half holds one
        return handnames.low_name(tr, low)

    if len(winners) == 1:
        seat = winners[0]
        if not hands:
            return tr("pot.scoop_short", name=names[seat], **fields)
        if hand.game is not Game.STUD8:  # G6, G7: one hand takes the pot, by the game's only reading
            best = low_hand(seat) if hand.game is Game.RAZZ else high_hand(seat)
            return tr("pot.wins_with", name=names[seat], hand=best, **fields)
        if award.low:
            return tr("pot.scoop", name=names[seat], high=high_hand(seat), low=low_hand(seat), **fields)
        return tr("pot.scoop_no_low", name=names[seat], high=high_hand(seat), **fields)
    if len(award.high) == 1 and len(award.low) == 1:  # two winners, one half each
        h, lo = award.high[0], award.low[0]
        if not hands:
            return tr("pot.halves_short", high=names[h], high_amount=award.shares[h], low=names[lo],
                      low_amount=award.shares[lo], **fields)
        return tr("pot.halves", high=names[h], high_amount=award.shares[h], high_hand=high_hand(h),
                  low=names[lo], low_amount=award.shares[lo], low_hand=low_hand(lo), **fields)
    who = ", ".join(f"{names[s]} {award.shares[s]}" for s in winners)
    return tr("line.pot_split", halves=halves(tr, high=_who(names, award.high), low=_who(names, award.low)),
              shares=who, **fields)


def _whole_pot_line(tr: Translator, award: Award, *, hand: Hand, names: Sequence[str], hands: bool,
                    fields: dict[str, object]) -> str:
    """A contested pot of Stud or Razz: the best high (G6) or the best ace-to-five low (G7) takes it whole,
    or the tied hands share it: 'Pot 6: ann wins (7-5-3-2-A)', 'Pot 6, split (pair of kings): ann 3, bob 3'."""
    razz = hand.scoring is Scoring.LOW
    winners = list(award.low if razz else award.high) or sorted(award.shares)  # (a pot always has its side's)

    def named(seat: int) -> str:
        cards = hand.all_cards(seat)
        return handnames.low_name(tr, best_razz(cards)) if razz else handnames.high_name(tr, best_high(cards))

    if len(winners) == 1:
        if not hands:
            return tr("result.win_short", name=names[winners[0]], **fields)
        return tr("result.win", name=names[winners[0]], hand=named(winners[0]), **fields)
    shares = ", ".join(f"{names[s]} {award.shares[s]}" for s in sorted(award.shares))
    if not hands:
        return tr("result.split_short", shares=shares, **fields)
    return tr("result.split", hand=named(winners[0]), shares=shares, **fields)


def pot_lines(tr: Translator, hand: Hand, names: Sequence[str], *, hands: bool = True) -> list[str]:
    """Every pot of a finished hand, main pot first (see :func:`pot_line`)."""
    return [pot_line(tr, award, index=i, hand=hand, names=names, hands=hands)
            for i, award in enumerate(hand.pot_results)]


# ------------------------------------------------------------------ history


def summary_of(hand: Hand) -> str:
    """What ``history`` shows of a finished hand, kept with it: JSON of each player's winnings
    from the pots and net for the hand, each pot's contenders and high and low winners, and the hand's game
    unless it is Stud Hi-Lo."""
    names = hand.names
    won = [0] * hand.seat_count
    for award in hand.pot_results:
        for seat, chips in award.shares.items():
            won[seat] += chips
    players = [[name, won[s], hand.stacks[s] - hand.starting_stacks[s]] for s, name in enumerate(names)]
    pots = [{"amount": a.amount, "eligible": [names[s] for s in a.eligible], "high": [names[s] for s in a.high],
             "low": [names[s] for s in a.low]} for a in hand.pot_results]
    data: dict[str, Any] = {"players": players, "pots": pots}
    if hand.game is not Game.STUD8:
        data["game"] = hand.game.value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _net(n: int) -> str:
    return f"{n:+d}" if n else "0"


def history_line(tr: Translator, summary: str, *, name_game: bool = False) -> str:
    """A hand's summary as ``history`` lists it, in the language of ``tr``:
    'Bot2 won 39 (net +20), Cat won 39 (net +19) — high Bot2, low Cat'; a scoop as a scoop. A hand of
    Stud or Razz says its game and whose best hand took the pots: 'Razz: ann won 6 (net +3) — best low';
    with ``name_game`` (a table that deals several games) a hand of Stud Hi-Lo names its game too.

    >>> from bot.core.i18n import EN
    >>> history_line(EN, '{"players":[["Bot2",78,39],["Cat",0,-39]],'
    ...                  '"pots":[{"amount":78,"eligible":["Bot2","Cat"],"high":["Bot2"],"low":[]}]}')
    'Bot2 scooped 78 (net +39) — high, no low'
    >>> history_line(EN, "Bot2 +78")  # kept as text before
    'Bot2 +78'
    >>> history_line(EN, '{"players":[["ann",6,3],["bob",0,-3]],'
    ...                  '"pots":[{"amount":6,"eligible":["ann","bob"],"high":[],"low":["ann"]}],"game":"razz"}')
    'Razz: ann won 6 (net +3) — best low'
    """
    data = _parse(summary)
    if data is None:
        return tr("history.no_chips") if summary == NO_CHIPS_MOVED else summary
    game = _game_of(data)
    line = _history_text(tr, data, game)
    if game is Game.STUD8 and not name_game:
        return line
    return tr("result.history_game", game=game_name(tr, game.value), line=line)


def several_games(summaries: Iterable[str]) -> bool:
    """Whether some of these summaries are of another game than Stud Hi-Lo: listed together, every line
    names its game then (G8).

    >>> several_games(['{"players":[],"pots":[]}', "Bot2 +78"])
    False
    >>> several_games(['{"players":[],"pots":[]}', '{"players":[],"pots":[],"game":"razz"}'])
    True
    """
    return any((data := _parse(summary)) is not None and _game_of(data) is not Game.STUD8 for summary in summaries)


def _game_of(data: dict[str, Any]) -> Game:
    """The game a summary names (absent: Stud Hi-Lo; a pot with a low and no high was Razz's all the same)."""
    try:
        return Game.from_str(data["game"]) if "game" in data else Game.RAZZ if any(
            pot["low"] and not pot["high"] for pot in data["pots"]) else Game.STUD8
    except (ValueError, KeyError, TypeError):
        return Game.STUD8


def _history_text(tr: Translator, data: dict[str, Any], game: Game) -> str:
    players: list[tuple[str, int, int]] = [(str(n), int(w), int(net)) for n, w, net in data["players"]]
    pots: list[dict[str, Any]] = list(data["pots"])
    winners = sorted((p for p in players if p[1] > 0), key=lambda p: -p[1])
    if not winners:
        return tr("history.no_chips")
    if not any(len(pot["eligible"]) > 1 for pot in pots):
        name, won, net = winners[0]
        return tr("history.entry", winners=tr("history.won", name=name, won=won, net=_net(net)),
                  detail=tr("history.no_showdown"))
    if game is not Game.STUD8:
        return _history_whole(tr, players=winners, pots=pots, side="low" if game is Game.RAZZ else "high")
    if len(winners) == 1:
        name, won, net = winners[0]
        detail = tr("history.scoop_low" if any(pot["low"] for pot in pots) else "history.scoop_no_low")
        return tr("history.entry", winners=tr("history.scooped", name=name, won=won, net=_net(net)), detail=detail)
    listed = ", ".join(tr("history.won", name=n, won=w, net=_net(net)) for n, w, net in winners)
    said = [tr("history.pot_scoop", name=pot["high"][0]) if len(pot["high"]) == 1 and pot["low"] == pot["high"]
            else halves(tr, high="/".join(pot["high"]), low="/".join(pot["low"])) for pot in pots]
    if len(set(said)) == 1:  # one pot, or every pot to the same hands
        detail = said[0]
    else:
        detail = "; ".join(tr("history.pot", label=pot_label(tr, index=i, count=len(pots)), halves=text)
                           for i, text in enumerate(said))
    return tr("history.entry", winners=listed, detail=detail)


def _history_whole(tr: Translator, *, players: list[tuple[str, int, int]], pots: list[dict[str, Any]],
                   side: str) -> str:
    """A showdown of Stud ('high') or Razz ('low'): each pot to the best hand of its side, whole or shared."""
    listed = ", ".join(tr("history.won", name=n, won=w, net=_net(net)) for n, w, net in players)
    best = tr("result.best_low" if side == "low" else "result.best_high")
    said = ["/".join(pot[side]) for pot in pots]
    if len(players) == 1 or len(set(said)) == 1:
        detail = best if len(players) == 1 else tr("result.shared", best=best)
    else:
        detail = "; ".join(tr("history.pot", label=pot_label(tr, index=i, count=len(pots)), halves=who)
                           for i, who in enumerate(said))
    return tr("history.entry", winners=listed, detail=detail)


def _parse(summary: str) -> dict[str, Any] | None:
    """The JSON summary, or None for a summary kept as text (older hands)."""
    if not summary.startswith("{"):
        return None
    try:
        data = json.loads(summary)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("players"), list) \
            or not isinstance(data.get("pots"), list):
        return None
    return data
