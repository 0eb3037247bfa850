"""The stud games on Telegram end to end (GAMES.md G5, G8): a Stud table whose fourth street shows a
pair offers both bets as buttons, and the big one's button plays G5's double bet. The harness is
tests/support/telegram_harness.py; the deck is fixed (the fair record's deck, patched) so that the
pair shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.telegram_server import FakeBotAPI, text_of
from telegram_harness import ANN, BOB, GROUP, Served, buttons, next_turn, open_table, press, say, start_and_deal
from telegram_harness import fake as fake  # the fixture

from engine import ALL_CARDS, parse_cards
from engine.fair import FairRecord
from engine.games import Game

# Dealt round the table from Ann (seat 0): Ann Ks Qs | 9h, Bob 7d 8d | 2c (brings in, G1); fourth
# street Ann 9c (a pair of nines shows), Bob Jd.
TOP = parse_cards("Ks 7d Qs 8d 9h 2c 9c Jd")
DECK = TOP + [c for c in sorted(ALL_CARDS, key=lambda c: c.index) if c not in TOP]


@pytest.mark.asyncio
async def test_stud_fourth_street_with_a_pair_offers_and_plays_the_double_bet(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FairRecord, "deck", lambda self: list(DECK))
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        await say(fake, ANN, "/stud config game=stud")
        assert any("The table now deals Stud." in t for t in fake.group_texts(GROUP))
        await start_and_deal(fake)
        turn, board = await next_turn(fake, None)
        assert "Hand #1 · Stud · third street" in text_of(board)
        await press(fake, BOB, "Bring-in 2")
        turn, board = await next_turn(fake, turn)
        await press(fake, ANN, "Call 2")
        turn, board = await next_turn(fake, turn)
        assert "Hand #1 · Stud · fourth street" in text_of(board)
        keys = buttons(board)
        assert {"Check", "Bet 5", "Bet 10"} <= set(keys)
        assert keys["Bet 5"] == f"s|bet|{turn}" and keys["Bet 10"] == f"s|bet-big|{turn}"
        answer = await press(fake, ANN, "Bet 10")
        assert not answer.get("text"), answer
        turn, board = await next_turn(fake, turn)
        assert {"Call 10", "Fold", "Raise to 20"} <= set(buttons(board))  # after the big bet, raises are big
        assert any("Ann bets 10 (the double bet: a pair shows)" in t for t in fake.group_texts(GROUP))
        await press(fake, BOB, "Fold")
        await fake.wait_for(lambda: served.runtime().hand.is_over, what="the hand's end")
        hand = served.runtime().hand
        assert hand.game is Game.STUD and [a.value for a in hand.actions] == ["bring-in", "call", "bet-big", "fold"]

