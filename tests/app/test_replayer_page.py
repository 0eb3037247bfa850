"""``replay N`` / ``replay last N`` and the replayer page (issue 23), without a browser: the answers and
refusals through the console, the page's size, that nothing the asker did not see is in it (a folded
player's down cards above all), and that its frames show what the hand's events say they must.
tests/e2e/test_replayer_browser.py opens the same pages in a real browser."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from replays import (
    all_in_hand,
    data_of,
    down_cards,
    expected_frames,
    fake_equity,
    hidden_cards,
    leaks,
    nets,
    page_of,
    pot_lines,
    split_hand,
)
from test_history import Chat, dm, saved, seat_three
from test_results import RAZZ_DOWN, STUD_DOWN, game_showdown

from bot.core.i18n import translator
from bot.core.limits import MAX_REPLAY
from bot.history.replayer import PAGE_BUDGET, ReplayHand, engine_equity, replay_page
from bot.text import results
from engine import Action, Deck, DeckDealer, Hand, Stakes
from engine.events import HandShown
from engine.games import Game


def frames_seen(data: dict[str, Any], index: int = 0) -> list[dict[str, Any]]:
    return [{"street": f["street"], "cards": [[c["c"] for c in s["cards"]] for s in f["seats"]], "pot": f["pot"],
             "final": f["final"]} for f in data["hands"][index]["frames"]]


# ------------------------------------------------------------------ the page of a scripted hand


def test_a_showdown_page_shows_what_the_asker_saw_street_by_street() -> None:
    hand = split_hand()
    page = page_of(hand, viewer="ann")
    data = data_of(page)
    assert frames_seen(data) == expected_frames(hand, "ann")
    assert [f["title"] for f in data["hands"][0]["frames"]] == [
        "Antes", "Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street", "Showdown"]
    result = data["hands"][0]["result"]
    assert result["pots"] == pot_lines(hand) and "takes the high" in result["pots"][0]
    assert {n["name"]: n["net"] for n in result["nets"]} == nets(hand)
    assert {h["name"] for h in result["hands"]} == {"ann", "bob"}
    logs = [line for f in data["hands"][0]["frames"] for line in f["log"]]
    assert "bob brings in 2" in logs and "ann bets 5" in logs and "cat folds" in logs and "ann antes 1" in logs
    assert not any(f["equity"] or f["face_up"] for f in data["hands"][0]["frames"])  # no all-in here


def test_a_folded_players_down_cards_are_nowhere_in_the_file() -> None:
    hand = split_hand()
    assert set(down_cards(hand, "cat")) == {"8c", "9c"}  # cat folded on fourth street, never showed
    for viewer in ("ann", "bob", None):
        page = page_of(hand, viewer=viewer)
        assert hidden_cards(hand, viewer) >= {"8c", "9c"}
        assert leaks(page, hand, viewer) == []
        assert "8♣" not in page and '"8c"' not in page and '"9c"' not in page
    mine = page_of(hand, viewer="cat")  # her own, though she folded: she saw them
    assert all(f'"{card}"' in mine for card in down_cards(hand, "cat"))
    assert leaks(mine, hand, "cat") == []


def test_a_watchers_page_shows_no_down_card_before_the_showdown() -> None:
    hand = split_hand()
    data = data_of(page_of(hand, viewer=None))
    assert frames_seen(data) == expected_frames(hand, None)
    before = data["hands"][0]["frames"][:-1]
    assert all(c["c"] is None for f in before for s in f["seats"] for i, c in enumerate(s["cards"]) if i in (0, 1, 6))


def test_at_an_all_in_the_hands_go_face_up_with_an_equity_line_per_street() -> None:
    hand = all_in_hand()
    page = page_of(hand, viewer="bob", equity=fake_equity)
    data = data_of(page)
    assert frames_seen(data) == expected_frames(hand, "bob")
    frames = data["hands"][0]["frames"]
    by_street = {f["street"]: f for f in frames if not f["final"]}
    assert [s for s, f in by_street.items() if f["face_up"]] == [4, 5, 6, 7]  # betting ended on fourth street
    assert by_street[4]["equity"] == "ann 61% · bob 27% · cat 12% · scoop ann 40%"
    assert by_street[6]["equity"] and not by_street[3]["equity"] and not by_street[7]["equity"]
    ann = hand.names.index("ann")
    assert [c["c"] for c in by_street[4]["seats"][ann]["cards"]][:2] == down_cards(hand, "ann")[:2]
    assert [c["c"] for c in by_street[3]["seats"][ann]["cards"]][:2] == [None, None]  # not before
    assert leaks(page, hand, "bob") == [] and set(down_cards(hand, "dan")) <= hidden_cards(hand, "bob")
    assert len(data["hands"][0]["result"]["pots"]) == 2  # main and side pot
    # without engine.equity, the same page without the line
    plain = data_of(page_of(hand, viewer="bob"))
    assert not any(f["equity"] for f in plain["hands"][0]["frames"])


def test_the_page_is_self_contained_small_and_in_the_askers_language() -> None:
    hand = all_in_hand()
    page = page_of(hand, viewer="ann", equity=fake_equity, tr=translator("ru"))
    assert len(page.encode()) < PAGE_BUDGET
    assert '<html lang="ru">' in page and "Четвёртый стрит" in page
    assert not re.search(r"<link|<img|<iframe|@import|url\(|\bsrc=|https?://(?!www\.w3\.org/2000/svg)", page)
    assert "default-src 'none'" in page  # and the browser is told to fetch nothing
    names = {"en": "Fourth street", "pl": "Czwarta ulica"}
    for lang, word in names.items():
        assert word in page_of(hand, viewer="ann", tr=translator(lang))


def test_a_name_cannot_close_the_pages_script() -> None:
    hand = split_hand()
    odd = Hand(stakes=Stakes(), names=["</script><!--x", "bob"], stacks=[50, 50],
               dealer=DeckDealer(Deck.shuffled(rng=random.Random(1))))
    while not odd.is_over:
        odd.act(Action.FOLD if Action.FOLD in odd.legal_actions() else odd.legal_actions()[0])
    page = replay_page([ReplayHand(number=1, hand=odd, seats=(1, 2), viewer="bob"),
                        ReplayHand(number=2, hand=hand, seats=(1, 2, 3), viewer=None)], tr=translator("en"))
    assert page.count("</script>") == 2 and "<!--x" not in page
    assert data_of(page)["hands"][0]["players"][0]["name"] == "</script><!--x"


def test_an_equity_that_fails_costs_only_the_line(caplog: pytest.LogCaptureFixture) -> None:
    def broken(hand: Hand) -> dict[int, Any]:
        raise ZeroDivisionError("a bug in engine.equity")

    hand = all_in_hand()
    data = data_of(page_of(hand, viewer="ann", equity=broken))
    assert frames_seen(data) == expected_frames(hand, "ann") and not any(
        f["equity"] for f in data["hands"][0]["frames"])
    assert "equity of an all-in failed" in caplog.text


def test_random_hands_never_leak_an_unseen_card() -> None:
    """Random deals and random players: each frame is what the events say, and no unseen card is in the file."""
    rng = random.Random(23)
    for n in range(60):
        names = ["ann", "bob", "cat", "dan", "eve"][:rng.randint(2, 5)]
        hand = Hand(stakes=Stakes(), names=names, stacks=[rng.choice([12, 30, 100]) for _ in names],
                    dealer=DeckDealer(Deck.shuffled(rng=rng)))
        while not hand.is_over:
            legal = hand.legal_actions()
            hand.act(rng.choice([a for a in legal if a is not Action.FOLD] if rng.random() < 0.8 and
                                len(legal) > 1 else legal))
        viewer = rng.choice([*names, None])
        page = page_of(hand, viewer=viewer, equity=fake_equity)
        assert leaks(page, hand, viewer) == [], n
        assert frames_seen(data_of(page)) == expected_frames(hand, viewer), n
        assert len(page.encode()) < PAGE_BUDGET
        assert bool(any(isinstance(e, HandShown) for e in hand.events)) == data_of(page)["hands"][0]["result"][
            "showdown"]


def test_many_hands_in_one_file() -> None:
    hands = [ReplayHand(number=i, hand=all_in_hand(), seats=(1, 2, 3, 4), viewer="ann") for i in range(MAX_REPLAY)]
    page = replay_page(hands, tr=translator("en"), equity=fake_equity)
    assert [h["number"] for h in data_of(page)["hands"]] == list(range(MAX_REPLAY))
    assert len(page.encode()) < 2 * PAGE_BUDGET  # the script and style once, a few kB per hand


def test_engine_equity_is_used_when_the_engine_has_it() -> None:
    from engine.equity import all_in_equity
    assert engine_equity() is all_in_equity


# ------------------------------------------------------------------ 'replay' through the console



@pytest.mark.asyncio
@pytest.mark.usefixtures("store_backend")
async def test_replay_answers_privately_with_one_file_and_refuses_what_it_cannot(tmp_path: Path) -> None:
    async with Chat(tmp_path, seed=3) as chat:
        await chat.say("ann", "new")
        assert dm(await chat.say("ann", "replay"), "ann") == ["No hand has been finished at this table yet."]
        await chat.say("ann", "stop")
    (tmp_path / "2").mkdir()
    async with Chat(tmp_path / "2", seed=3) as chat:
        await seat_three(chat)
        await chat.play_hand(folds="bob")
        hand = await chat.stored(1)
        lines = await chat.say("ann", "replay 1")
        assert all(line.startswith("[dm ann] ") for line in lines), lines  # private, nothing public
        assert dm(lines, "ann")[0].startswith("Hand #1: open the file in a browser")
        [path] = saved(lines, "ann")
        assert path.name == "stud-hand-1.html"
        page = path.read_text(encoding="utf-8")
        assert len(page.encode()) < PAGE_BUDGET
        assert leaks(page, hand, "ann") == [] and set(down_cards(hand, "bob")) <= hidden_cards(hand, "ann")
        assert all(f'"{card}"' in page for card in down_cards(hand, "ann"))
        assert frames_seen(data_of(page)) == expected_frames(hand, "ann")
        assert [p["seat"] for p in data_of(page)["hands"][0]["players"]] == [1, 3, 4]  # the real seats
        # bob's own page (no number: his last hand); dan did not play: refused, unless he names the hand
        [bobs] = saved(await chat.say("bob", "replay"), "bob")
        assert leaks(bobs.read_text(encoding="utf-8"), hand, "bob") == []
        assert dm(await chat.say("dan", "replay"), "dan") == [
            "You were not dealt into any finished hand here. 'replay 1' replays hand 1."]
        [dans] = saved(await chat.say("dan", "replay 1"), "dan")
        assert leaks(dans.read_text(encoding="utf-8"), hand, None) == []
        assert dm(await chat.say("ann", "replay 9"), "ann") == [
            "There is no finished hand #9 at this table; the last one is #1."]
        assert "at most 20 hands" in dm(await chat.say("ann", "replay last 21"), "ann")[0]
        assert dm(await chat.say("ann", "replay last"), "ann")[0].startswith("usage: replay")
        # a second hand: 'replay last 2' is one file with both, a picker between them
        await chat.clock.advance(6)
        await chat.play_hand()
        lines = await chat.say("ann", "replay last 2")
        assert dm(lines, "ann")[0].startswith("Hands #1 to #2 (2) in one file")
        [both] = saved(lines, "ann")
        assert both.name == "stud-hands-1-2.html"
        assert [h["number"] for h in data_of(both.read_text(encoding="utf-8"))["hands"]] == [1, 2]
        # in the asker's language
        await chat.say("ann", "lang pl")
        lines = await chat.say("ann", "powtórka 1")
        assert dm(lines, "ann")[0].startswith("Rozdanie nr 1: otwórz plik w przeglądarce"), lines
        assert '<html lang="pl">' in path.read_text(encoding="utf-8")  # written again, in Polish


# ------------------------------------------------------------------ the other games (GAMES.md)


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_rule_g7_a_razz_page_names_razz_and_reads_every_hand_as_a_low(lang: str) -> None:
    """Razz: the title names the game, the seats' lines and the shown hands are ace-to-five lows (never a high),
    and the pot goes whole to the best low."""
    tr = translator(lang)
    hand = game_showdown(RAZZ_DOWN, Game.RAZZ)
    data = data_of(page_of(hand, viewer="ann", tr=tr))["hands"][0]
    razz, high, low = {"en": ("Razz", "High", "Low"), "ru": ("Разз", "Хай", "Лоу"), "pl": ("Razz", "High", "Low")}[lang]
    assert data["title"].startswith(f"{razz} · ") and data["game"] == "razz"
    mine = [f["seats"][0]["hand"] for f in data["frames"] if f["seats"][0]["hand"]]
    assert mine and all(low in line and high not in line for line in mine), mine
    assert mine[-1].endswith("7-5-3-2-A"), mine
    result = data["result"]
    assert {h["name"]: (h["high"], h["low"]) for h in result["hands"]} == {
        "ann": ("", "7-5-3-2-A"), "bob": ("", "J-10-9-8-4")}
    assert result["pots"] == results.pot_lines(tr, hand, hand.names) and "7-5-3-2-A" in result["pots"][0]


def test_rule_g6_a_stud_page_names_stud_and_shows_no_low() -> None:
    hand = game_showdown(STUD_DOWN, Game.STUD)
    data = data_of(page_of(hand, viewer="bob"))["hands"][0]
    assert data["title"].startswith("Stud · Hand #1") and data["game"] == "stud"
    lines = [s["hand"] for f in data["frames"] for s in f["seats"] if s["hand"]]
    assert lines and not any("low" in line.lower() for line in lines), lines
    assert {h["name"]: h["low"] for h in data["result"]["hands"]} == {"ann": "", "bob": ""}
    assert data["result"]["pots"] == ["Pot 6: ann wins (pair of kings)"]
    # Stud Hi-Lo's pages read as before: no game in the title
    assert data_of(page_of(split_hand(), viewer="ann"))["hands"][0]["title"].startswith("Hand #1")
