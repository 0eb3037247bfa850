"""What a player reads in each game (GAMES.md G6-G7): the private card line says what matters in the
hand's game, the showdown lines name the low of Razz and only the high of Stud; Stud Hi-Lo unchanged."""

from __future__ import annotations

import pytest

from bot.core.i18n import translator
from bot.core.model import Table
from bot.text import handnames, render
from engine import Action, Card, Hand, Stakes, parse_cards
from engine.dealing import ScriptedDealer
from engine.games import Game
from engine.lowball import best_razz

ANN = "2c 7d 4h 9s Kd Ah 2d"
BOB = "Qc Qd Js Jh 3c 3d 8h"


def _hand(game: Game, ann: str = ANN, bob: str = BOB) -> Hand:
    cards: list[list[Card]] = [parse_cards(ann), parse_cards(bob)]
    return Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[100, 100], dealer=ScriptedDealer(cards=cards),
                game=game)


def _call_down(hand: Hand) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        hand.act(next(a for a in (Action.BRING_IN, Action.CALL, Action.CHECK) if a in legal))


def _private_lines(game: Game, lang: str = "en") -> list[str]:
    """Ann's private strength line after each street."""
    hand, seen = _hand(game), []
    while not hand.is_over:
        line = render.private_view(hand, 0, hand_no=3, tr=translator(lang)).splitlines()[1]
        if not seen or seen[-1] != line:
            seen.append(line)
        legal = hand.legal_actions()
        hand.act(next(a for a in (Action.BRING_IN, Action.CALL, Action.CHECK) if a in legal))
    return seen


def test_rule_g7_the_razz_line_is_the_low_alone_street_by_street() -> None:
    # third street 2-7-4, fourth a nine (not worth naming while three cards are eight or lower), then K, A, 2
    assert _private_lines(Game.RAZZ) == ["drawing to 7-4-2", "Low: K-9-7-4-2", "Low: 9-7-4-2-A"]


def test_rule_g6_the_stud_line_is_the_high_alone() -> None:
    lines = _private_lines(Game.STUD)
    assert lines[0] == "High: seven high" and all(line.startswith("High: ") and "·" not in line for line in lines)
    assert lines[-1] == "High: pair of twos"


def test_stud8_keeps_its_high_and_low_line() -> None:
    assert _private_lines(Game.STUD8)[-1] == "High: pair of twos · no low"  # a nine is not eight or better


@pytest.mark.parametrize(("lang", "razz", "drawing"), [
    ("en", "Low: 9-7-4-2-A", "drawing to 7-4-2"),
    ("ru", "Лоу: 9-7-4-2-A", "дро на лоу 7-4-2"),
    ("pl", "Low: 9-7-4-2-A", "ciągniesz do low 7-4-2"),
])
def test_razz_lines_in_each_language(lang: str, razz: str, drawing: str) -> None:
    lines = _private_lines(Game.RAZZ, lang)
    assert lines[0] == drawing and lines[-1] == razz


@pytest.mark.parametrize(("cards", "en", "ru", "pl"), [
    ("2c 2d Kh Qs Jc", "pair of twos, K-Q-J", "пара двоек, K-Q-J", "para dwójek, K-Q-J"),
    ("Ac Ad 3h 3s 4c", "two pair, threes and aces, 4", "две пары, тройки и тузы, 4", "dwie pary, trójki i asy, 4"),
    ("7c 7d 7h 2s 3c", "three sevens, 3-2", "тройка семёрок, 3-2", "trójka siódemek, 3-2"),
    ("Kc Qd Jh Ts 9c", "K-Q-J-10-9", "K-Q-J-10-9", "K-Q-J-10-9"),
    ("5c 4d 3h 2s Ac", "wheel", None, None),
])
def test_rule_g7_razz_lows_by_name(cards: str, en: str, ru: str | None, pl: str | None) -> None:
    low = best_razz(parse_cards(cards))
    assert handnames.low_name(translator("en"), low) == en
    for lang, want in (("ru", ru), ("pl", pl)):
        if want is not None:
            assert handnames.low_name(translator(lang), low) == want


def test_rule_g7_razz_showdown_names_the_lows_and_no_high() -> None:
    hand = _hand(Game.RAZZ)
    _call_down(hand)
    lines = render.describe(hand.events, hand, ["ann", "bob"])
    shows = [line for line in lines if " shows " in line]
    pots = [line for line in lines if line.startswith("Pot ")]
    assert pots == [f"Pot {sum(hand.contributed)}: ann wins (9-7-4-2-A)"]
    assert shows == ["ann shows 2♣ 7♦ 4♥ 9♠ K♦ A♥ 2♦: 9-7-4-2-A",
                     "bob shows Q♣ Q♦ J♠ J♥ 3♣ 3♦ 8♥: pair of threes, Q-J-8"]


def test_rule_g6_stud_showdown_names_the_high_and_says_nothing_of_a_low() -> None:
    hand = _hand(Game.STUD)
    _call_down(hand)
    shows = [line for line in render.describe(hand.events, hand, ["ann", "bob"]) if " shows " in line]
    assert shows == ["bob shows Q♣ Q♦ J♠ J♥ 3♣ 3♦ 8♥: two pair, queens and jacks",
                     "ann shows 2♣ 7♦ 4♥ 9♠ K♦ A♥ 2♦: pair of twos"] or \
        sorted(shows) == sorted(["bob shows Q♣ Q♦ J♠ J♥ 3♣ 3♦ 8♥: two pair, queens and jacks",
                                 "ann shows 2♣ 7♦ 4♥ 9♠ K♦ A♥ 2♦: pair of twos"])
    assert not any("low" in line for line in shows)
    lines = render.describe(hand.events, hand, ["ann", "bob"])
    assert [line for line in lines if line.startswith("Pot ")] == \
        [f"Pot {sum(hand.contributed)}: bob wins (two pair, queens and jacks)"]


def test_rule_g8_the_board_names_the_hands_game() -> None:
    table = Table(id=1, platform="console", community="c", channel="c", creator="ann", stakes=Stakes(), timer=30,
                  hand_no=12, game="razz")
    text, _ = render.board(table, _hand(Game.RAZZ), names=["ann", "bob"], turn=None, seconds_left=None)
    assert text.startswith("Hand #12 · Razz · third street · ante 1, bring-in 2, bets 5/10")
    text, _ = render.board(table, _hand(Game.RAZZ), names=["ann", "bob"], turn=None, seconds_left=None,
                           tr=translator("ru"))
    assert text.startswith("Раздача №12 · Разз · третий стрит")
