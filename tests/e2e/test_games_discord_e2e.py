"""The stud games on Discord end to end (GAMES.md G5, G8): '/stud config game:stud', and on a fourth
street that shows a pair the board's 'Bet 10' button plays G5's double bet. The harness is
tests/support/discord_harness.py; the deck is fixed (the fair record's deck, patched)."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_harness import ANN, BOB, action_buttons, next_board, press, say, start_and_deal, start_bot, token, until
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_server import FakeDiscord

from engine import ALL_CARDS, parse_cards
from engine.fair import FairRecord

# Dealt round the table from Ann: Ann Ks Qs | 9h, Bob 7d 8d | 2c (brings in, G1); fourth street Ann 9c
# (a pair of nines shows), Bob Jd.
TOP = parse_cards("Ks 7d Qs 8d 9h 2c 9c Jd")
DECK = TOP + [c for c in sorted(ALL_CARDS, key=lambda c: c.index) if c not in TOP]


@pytest.mark.asyncio
async def test_discord_config_game_and_the_double_bet_button(fake: FakeDiscord, tmp_path: Path, fast: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on Discord: '/stud config game:stud' and the board's 'Bet 10' button (its custom id
    'stud:bet-big@1.2'); '/stud act action:raise-big' is refused with the reason when the choice is closed."""
    monkeypatch.setattr(FairRecord, "deck", lambda self: list(DECK))
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "Seated" in await say(fake, ANN, "join", buy_in=100)
        assert "Seated" in await say(fake, BOB, "join", buy_in=100)
        assert await say(fake, ANN, "config", game="stud") == "Done."
        await start_and_deal(fake)
        board = await next_board(fake, None)
        assert "Stud" in board.text and "Hand #1 · Stud · third street" in board.text
        await press(fake, BOB, action_buttons(board)["bring-in"])
        board = await next_board(fake, token(board))
        await press(fake, ANN, action_buttons(board)["call"])
        board = await next_board(fake, token(board))
        keys = action_buttons(board)
        assert {"check", "bet", "bet-big"} <= set(keys) and keys["bet-big"].startswith("stud:bet-big@")
        await press(fake, ANN, keys["bet-big"])
        board = await next_board(fake, token(board))
        assert "raise-big" not in action_buttons(board)  # after the big bet every raise is big
        assert "double bet is only for Stud's fourth street" in await say(fake, BOB, "act", action="raise-big")
        await until(lambda: "Ann bets 10 (the double bet: a pair shows)" in fake.lines(), what="the double bet")
    finally:
        await bot.stop()
