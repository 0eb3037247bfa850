"""What players read of a hand's pots, in English, Russian and Polish: the showdown lines,
the text board and the picture say "Pot" for one pot and name side pots only when an all-in
made them; a scoop reads as a scoop; ``history`` says what was won, the net, and who won
the high and the low. Hands are built with explicit cards and stacks (exact results)."""

from __future__ import annotations

import json

import pytest
from helpers import make_hand, play

from bot.core.i18n import Translator, translator
from bot.core.model import Table
from bot.text import images, render, results
from engine import Hand, ScriptedDealer, Stakes, parse_cards
from engine.events import ActionTaken, PotAwarded
from engine.games import Game

SPLIT = {"ann": "Ah 2h 3d 4c 5s Kd Kh", "bob": "Qc Qd Qs Jc Jd 9s 9h"}
"""bob's queens full take the high, ann's wheel the low."""
SCOOP = {"ann": "Ah 2h 3h 4h 5h Kd Kc", "bob": "Qc Qd Qs Jc Jd 9s 9h"}
"""ann's steel wheel: the best high and the best low."""
SCOOP_NO_LOW = {"ann": "Kc Kd Ks Qc Qd 9s 9h", "bob": "Jc Jd 2s 3c 9c Tc Th"}
"""ann's kings full; nobody has a low."""
ALL_INS = {"ann": "Kc Kd Ks Qc Qd 9s 9h", "bob": "Ah 2h 3d 4c 5s 7d 7h", "cat": "Jc Jd 6s 8c Tc Th 2c",
           "dan": "Ac 3c 4d 6d 8d Js Qs"}
ALL_IN_STACKS = {"ann": 10, "bob": 25, "cat": 100, "dan": 100}
"""ann all-in for 10, bob for 25 (cat bets every street): a main pot and two side pots."""

EN, RU, PL = translator("en"), translator("ru"), translator("pl")
LANGS = pytest.mark.parametrize("tr", [EN, RU, PL], ids=["en", "ru", "pl"])
TABLE = Table(id=1, platform="discord", community="g", channel="c", creator="u", stakes=Stakes(), timer=60)
SIDE_WORDS = {"en": ("Main pot", "Side pot"), "ru": ("Основной банк", "Побочный банк"),
              "pl": ("Pula główna", "Pula boczna")}


def showdown(cards: dict[str, str], *, stacks: dict[str, int] | int = 100, aggressor: str | None = None) -> Hand:
    """Nobody folds: everyone brings in, calls and checks; ``aggressor`` completes, bets and raises."""
    hand = make_hand(cards, stacks=stacks)
    while not hand.is_over:
        mine = aggressor is not None and hand.actor == hand.names.index(aggressor)
        choices = ("complete", "bet", "raise", "call", "check") if mine else ("bring-in", "call", "check")
        hand.act(next(a for a in choices if hand.can(a)))
    return hand


RAZZ_DOWN = {"ann": "Ac 2d 3h 5s 7c 9d Kh", "bob": "Kc Qd Jh Ts 9c 8d 4h"}
"""Razz (G7): ann's 7-5-3-2-A beats bob's J-10-9-8-4; bob's jack door brings in (G2)."""
STUD_DOWN = {"ann": "Kc Kd 2s 7c 9d Jh 3h", "bob": "Ah 2h 3d 4c 6s 8d 8h"}
"""Stud (G6): ann's kings beat bob's eights; bob's 8-6-4-3-2 is no low in Stud."""


def game_hand(cards: dict[str, str], game: Game, *, stacks: int = 100) -> Hand:
    """A hand of ``game`` whose players get the listed cards in dealt order."""
    names = list(cards)
    dealer = ScriptedDealer(cards=[parse_cards(cards[n]) for n in names], community=None, names=names)
    return Hand(stakes=Stakes(), names=names, stacks=[stacks] * len(names), dealer=dealer, game=game)


def game_showdown(cards: dict[str, str], game: Game) -> Hand:
    """Nobody folds in a hand of ``game``: the bring-in, then calls and checks to the showdown."""
    hand = game_hand(cards, game)
    while not hand.is_over:
        hand.act(next(a for a in ("bring-in", "call", "check") if hand.can(a)))
    return hand


def described_pots(hand: Hand, tr: Translator) -> list[str]:
    """The showdown's pot lines as the table reads them (from the hand's PotAwarded events)."""
    events = [e for e in hand.events if isinstance(e, PotAwarded)]
    return render.describe(events, hand, hand.names, tr)


# ------------------------------------------------------------------ one pot


@LANGS
def test_one_pot_is_the_pot_and_a_split_says_who_took_which_half(tr: Translator) -> None:
    hand = showdown(SPLIT)
    assert len(hand.pot_results) == 1
    lines = described_pots(hand, tr)
    assert lines == [{
        "en": "Pot 6: bob takes the high, 3 (full house, queens full of jacks); ann takes the low, 3 (wheel)",
        "ru": "Банк 6: bob берёт хай — 3 (фулл-хаус из дам и вальтов); ann берёт лоу — 3 (колесо)",
        "pl": "Pula 6: bob bierze high – 3 (full, damy na waletach); ann bierze low – 3 (koło)",
    }[tr.lang]]
    main, side = SIDE_WORDS[tr.lang]
    for text in (*lines, render.pots_text(hand, tr), *images.showdown_text(hand, names=hand.names, tr=tr).pots):
        assert main not in text and side not in text
    assert render.pots_text(hand, tr) == tr("pot.total", total=6)
    layout = images.board_layout(TABLE, hand, names=hand.names, tr=tr)
    assert (layout.pot, layout.pot_detail) == ({"en": "Pot 6", "ru": "Банк 6", "pl": "Pula 6"}[tr.lang], "")
    # the picture shows each hand beside its cards, and the pot without naming them again
    assert images.showdown_text(hand, names=hand.names, tr=tr).pots == ({
        "en": "Pot 6: bob takes the high, 3; ann takes the low, 3",
        "ru": "Банк 6: bob берёт хай — 3; ann берёт лоу — 3",
        "pl": "Pula 6: bob bierze high – 3; ann bierze low – 3"}[tr.lang],)


@LANGS
def test_a_scoop_reads_as_a_scoop(tr: Translator) -> None:
    hand = showdown(SCOOP)
    assert images.showdown_text(hand, names=hand.names, tr=tr).pots == ({
        "en": "Pot 6: ann scoops", "ru": "Банк 6: ann забирает всё", "pl": "Pula 6: ann zgarnia całą pulę"}[tr.lang],)
    assert described_pots(hand, tr) == [{
        "en": "Pot 6: ann scoops (high: straight flush, five high; low: wheel)",
        "ru": "Банк 6: ann забирает всё (хай: стрит-флеш до пятёрки; лоу: колесо)",
        "pl": "Pula 6: ann zgarnia całą pulę (high: poker do piątki; low: koło)",
    }[tr.lang]]
    assert described_pots(showdown(SCOOP_NO_LOW), tr) == [{
        "en": "Pot 6: ann scoops (high: full house, kings full of queens; no low)",
        "ru": "Банк 6: ann забирает всё (хай: фулл-хаус из королей и дам; лоу нет)",
        "pl": "Pula 6: ann zgarnia całą pulę (high: full, króle na damach; bez low)",
    }[tr.lang]]


@LANGS
def test_an_uncontested_pot(tr: Translator) -> None:
    hand = play(make_hand(SPLIT), "bring-in", "fold")
    assert described_pots(hand, tr) == [{"en": "Pot 2: ann wins 2, uncontested",
                                         "ru": "Банк 2: ann забирает 2 без вскрытия",
                                         "pl": "Pula 2: ann wygrywa 2 bez odkrywania kart"}[tr.lang]]


# ------------------------------------------------------------------ side pots from all-ins


@LANGS
def test_two_all_ins_at_two_totals_make_a_main_pot_and_two_side_pots(tr: Translator) -> None:
    hand = showdown(ALL_INS, stacks=ALL_IN_STACKS, aggressor="cat")
    assert hand.contributed == [10, 25, 41, 41]
    assert {e.seat for e in hand.events if isinstance(e, ActionTaken) and e.all_in} == {0, 1}  # ann, bob
    assert [p.amount for p in hand.pot_results] == [40, 45, 32]
    lines = described_pots(hand, tr)
    assert lines == {
        "en": ["Main pot 40: ann takes the high, 20 (full house, kings full of queens); bob takes the low, 20 (wheel)",
               "Side pot 1 45: bob scoops (high: straight, five high; low: wheel)",
               "Side pot 2 32: cat takes the high, 16 (two pair, jacks and tens); dan takes the low, 16 (8-6-4-3-A)"],
        "ru": ["Основной банк 40: ann берёт хай — 20 (фулл-хаус из королей и дам); bob берёт лоу — 20 (колесо)",
               "Побочный банк 1 45: bob забирает всё (хай: стрит до пятёрки; лоу: колесо)",
               "Побочный банк 2 32: cat берёт хай — 16 (две пары, вальты и десятки); dan берёт лоу — 16 (8-6-4-3-A)"],
        "pl": ["Pula główna 40: ann bierze high – 20 (full, króle na damach); bob bierze low – 20 (koło)",
               "Pula boczna 1 45: bob zgarnia całą pulę (high: strit do piątki; low: koło)",
               "Pula boczna 2 32: cat bierze high – 16 (dwie pary, walety i dziesiątki); "
               "dan bierze low – 16 (8-6-4-3-A)"],
    }[tr.lang]
    assert render.pots_text(hand, tr) == {"en": "Pot 117 (main 40, side 1: 45, side 2: 32)",
                                          "ru": "Банк 117 (основной 40, побочный 1: 45, побочный 2: 32)",
                                          "pl": "Pula 117 (główna 40, boczna 1: 45, boczna 2: 32)"}[tr.lang]
    assert images.showdown_text(hand, names=hand.names, tr=tr).pots == {
        "en": ("Main pot 40: ann takes the high, 20; bob takes the low, 20", "Side pot 1 45: bob scoops",
               "Side pot 2 32: cat takes the high, 16; dan takes the low, 16"),
        "ru": ("Основной банк 40: ann берёт хай — 20; bob берёт лоу — 20", "Побочный банк 1 45: bob забирает всё",
               "Побочный банк 2 32: cat берёт хай — 16; dan берёт лоу — 16"),
        "pl": ("Pula główna 40: ann bierze high – 20; bob bierze low – 20", "Pula boczna 1 45: bob zgarnia całą pulę",
               "Pula boczna 2 32: cat bierze high – 16; dan bierze low – 16"),
    }[tr.lang]
    layout = images.board_layout(TABLE, hand, names=hand.names, tr=tr)
    assert (layout.pot, layout.pot_detail) == (tr("pot.total", total=117), render.pots_text(hand, tr)
                                               .partition(" (")[2].removesuffix(")"))


def test_one_side_pot_is_side_pot_1_and_no_side_pot_2() -> None:
    hand = showdown({k: ALL_INS[k] for k in ("ann", "cat", "dan")}, stacks={"ann": 10, "cat": 100, "dan": 100},
                    aggressor="cat")
    lines = described_pots(hand, EN)
    assert [line.split(":")[0] for line in lines] == ["Main pot 30", "Side pot 1 " + str(hand.pot_results[1].amount)]
    assert not any("Side pot 2" in line for line in lines)


# ------------------------------------------------------------------ history


@LANGS
def test_history_says_what_was_won_the_net_and_who_won_each_half(tr: Translator) -> None:
    def line(hand: Hand) -> str:
        return results.history_line(tr, results.summary_of(hand))

    assert line(showdown(SPLIT)) == {
        "en": "ann won 3 (net 0), bob won 3 (net 0) — high bob, low ann",
        "ru": "ann выигрывает 3 (чистыми 0), bob выигрывает 3 (чистыми 0) — хай bob, лоу ann",
        "pl": "ann wygrywa 3 (na czysto 0), bob wygrywa 3 (na czysto 0) — high bob, low ann",
    }[tr.lang]
    assert line(showdown(SCOOP)) == {"en": "ann scooped 6 (net +3) — high and low",
                                     "ru": "ann забирает весь банк 6 (чистыми +3) — и хай, и лоу",
                                     "pl": "ann zgarnia całą pulę 6 (na czysto +3) — high i low"}[tr.lang]
    assert line(showdown(SCOOP_NO_LOW)) == {"en": "ann scooped 6 (net +3) — high, no low",
                                            "ru": "ann забирает весь банк 6 (чистыми +3) — хай, лоу нет",
                                            "pl": "ann zgarnia całą pulę 6 (na czysto +3) — high, bez low"}[tr.lang]
    assert line(play(make_hand(SPLIT), "bring-in", "fold")) == {
        "en": "ann won 2 (net +1) — no showdown", "ru": "ann выигрывает 2 (чистыми +1) — без вскрытия",
        "pl": "ann wygrywa 2 (na czysto +1) — bez odkrywania kart"}[tr.lang]
    assert line(showdown(ALL_INS, stacks=ALL_IN_STACKS, aggressor="cat")) == {
        "en": "bob won 65 (net +40), ann won 20 (net +10), cat won 16 (net -25), dan won 16 (net -25)"
              " — Main pot: high ann, low bob; Side pot 1: bob scoops; Side pot 2: high cat, low dan",
        "ru": "bob выигрывает 65 (чистыми +40), ann выигрывает 20 (чистыми +10), cat выигрывает 16 (чистыми -25),"
              " dan выигрывает 16 (чистыми -25) — Основной банк: хай ann, лоу bob; Побочный банк 1: bob забирает всё;"
              " Побочный банк 2: хай cat, лоу dan",
        "pl": "bob wygrywa 65 (na czysto +40), ann wygrywa 20 (na czysto +10), cat wygrywa 16 (na czysto -25),"
              " dan wygrywa 16 (na czysto -25) — Pula główna: high ann, low bob; Pula boczna 1: bob zgarnia całą pulę;"
              " Pula boczna 2: high cat, low dan",
    }[tr.lang]


def test_the_summary_keeps_winnings_and_net_per_player() -> None:
    hand = showdown(ALL_INS, stacks=ALL_IN_STACKS, aggressor="cat")
    data = json.loads(results.summary_of(hand))
    assert data["players"] == [["ann", 20, 10], ["bob", 65, 40], ["cat", 16, -25], ["dan", 16, -25]]
    assert sum(net for _, _, net in data["players"]) == 0  # chips are never created or lost
    assert [p["amount"] for p in data["pots"]] == [40, 45, 32]
    assert data["pots"][1] == {"amount": 45, "eligible": ["bob", "cat", "dan"], "high": ["bob"], "low": ["bob"]}


@LANGS
def test_summaries_kept_as_text_by_older_versions_still_read(tr: Translator) -> None:
    assert results.history_line(tr, "Bot2 +78") == "Bot2 +78"
    assert results.history_line(tr, "Bot2 +40, Cat +38") == "Bot2 +40, Cat +38"
    assert results.history_line(tr, results.NO_CHIPS_MOVED) == tr("history.no_chips")
    assert results.history_line(tr, "{not json") == "{not json"
    nobody = json.dumps({"players": [["ann", 0, 0], ["bob", 0, 0]], "pots": []})
    assert results.history_line(tr, nobody) == tr("history.no_chips")


# ------------------------------------------------------------------ Stud (G6) and Razz (G7): whole pots

RAZZ_TIE = {"ann": "Ac 2d 3h 5s 7c Kd Kh", "bob": "As 2c 3d 5h 7d Qd Qh"}
"""Razz: both make 7-5-3-2-A and share the pot (G7, rule 19's low split)."""


@LANGS
def test_rule_g7_a_razz_pot_goes_whole_to_the_best_low_and_says_so(tr: Translator) -> None:
    hand = game_showdown(RAZZ_DOWN, Game.RAZZ)
    assert described_pots(hand, tr) == results.pot_lines(tr, hand, hand.names) == [{
        "en": "Pot 6: ann wins (7-5-3-2-A)", "ru": "Банк 6: ann выигрывает (7-5-3-2-A)",
        "pl": "Pula 6: ann wygrywa (7-5-3-2-A)"}[tr.lang]]
    assert results.pot_lines(tr, hand, hand.names, hands=False) == [{
        "en": "Pot 6: ann wins", "ru": "Банк 6: ann выигрывает", "pl": "Pula 6: ann wygrywa"}[tr.lang]]
    for text in (*described_pots(hand, tr), results.history_line(tr, results.summary_of(hand))):
        assert all(word not in text.lower() for word in ("high", "хай", "scoop", "забирает всё", "zgarnia")), text
    assert results.history_line(tr, results.summary_of(hand)) == {
        "en": "Razz: ann won 6 (net +3) — best low", "ru": "Разз: ann выигрывает 6 (чистыми +3) — лучший лоу",
        "pl": "Razz: ann wygrywa 6 (na czysto +3) — najlepszy low"}[tr.lang]


@LANGS
def test_rule_g6_a_stud_pot_goes_whole_to_the_best_high_with_no_word_of_a_low(tr: Translator) -> None:
    hand = game_showdown(STUD_DOWN, Game.STUD)
    assert described_pots(hand, tr) == [{
        "en": "Pot 6: ann wins (pair of kings)", "ru": "Банк 6: ann выигрывает (пара королей)",
        "pl": "Pula 6: ann wygrywa (para króli)"}[tr.lang]]
    summary = results.summary_of(hand)
    assert json.loads(summary)["game"] == "stud"
    assert results.history_line(tr, summary) == {
        "en": "Stud: ann won 6 (net +3) — best high", "ru": "Стад: ann выигрывает 6 (чистыми +3) — лучший хай",
        "pl": "Stud: ann wygrywa 6 (na czysto +3) — najlepszy high"}[tr.lang]
    for text in (*described_pots(hand, tr), results.history_line(tr, summary)):
        assert all(word not in text for word in ("low", "лоу", "no low")), text


def test_rule_g7_a_razz_tie_shares_the_pot() -> None:
    hand = game_showdown(RAZZ_TIE, Game.RAZZ)
    [pot] = hand.pot_results
    assert pot.high == () and sorted(pot.low) == [0, 1]
    assert described_pots(hand, EN) == ["Pot 6, split (7-5-3-2-A): ann 3, bob 3"]
    assert results.pot_lines(EN, hand, hand.names, hands=False) == ["Pot 6, split: ann 3, bob 3"]
    assert results.history_line(EN, results.summary_of(hand)) == (
        "Razz: ann won 3 (net 0), bob won 3 (net 0) — shared, best low")


def test_rule_g8_a_history_line_names_its_game_where_a_table_deals_several() -> None:
    hilo = showdown(SCOOP)
    summary = results.summary_of(hilo)
    assert "game" not in json.loads(summary)  # Stud Hi-Lo's summaries are written as before
    assert results.history_line(EN, summary) == "ann scooped 6 (net +3) — high and low"
    assert results.history_line(EN, summary, name_game=True) == "Stud Hi-Lo: ann scooped 6 (net +3) — high and low"
    # a razz hand settled before summaries named their game: a pot with a low and no high was Razz's
    razz = json.loads(results.summary_of(game_showdown(RAZZ_DOWN, Game.RAZZ)))
    del razz["game"]
    assert results.history_line(EN, json.dumps(razz)) == "Razz: ann won 6 (net +3) — best low"
    assert results.game_name(RU, "mix") == "Стад-микс" and results.game_name(PL, "stud8") == "Stud Hi-Lo"


RAZZ_ALL_INS = {"ann": "Ac 2d 3h 5s 7c 9d Kh", "bob": "2c 3d 4h 6s 8c Qd Jh", "cat": "Kc Qc Jc Tc 9c 8h 4d"}
"""Razz: ann all-in for 10 with 7-5-3-2-A, bob for 25 with 8-6-4-3-2, cat (J-10-9-8-4) bets every street."""


def test_rule_g7_razz_side_pots_go_each_to_its_best_low() -> None:
    names = list(RAZZ_ALL_INS)
    dealer = ScriptedDealer(cards=[parse_cards(RAZZ_ALL_INS[n]) for n in names], community=None, names=names)
    hand = Hand(stakes=Stakes(), names=names, stacks=[10, 25, 100], dealer=dealer, game=Game.RAZZ)
    while not hand.is_over:
        choices = ("complete", "bet", "raise", "call", "check") if hand.actor == 2 else ("bring-in", "call", "check")
        hand.act(next(a for a in choices if hand.can(a)))
    assert described_pots(hand, EN) == ["Main pot 30: ann wins (7-5-3-2-A)", "Side pot 1 30: bob wins (8-6-4-3-2)"]
    assert results.history_line(EN, results.summary_of(hand)) == (
        "Razz: ann won 30 (net +20), bob won 30 (net +5) — Main pot: ann; Side pot 1: bob")
    shown = images.showdown_text(hand, names=hand.names, tr=EN)
    assert shown.rows == ((2, "cat", "Low: J-10-9-8-4"), (0, "ann wins 30", "Low: 7-5-3-2-A"),
                          (1, "bob wins 30", "Low: 8-6-4-3-2"))
    assert shown.pots == ("Main pot 30: ann wins", "Side pot 1 30: bob wins")
