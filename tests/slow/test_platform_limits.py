"""Issue 24, end to end and scaled down: ``bench.platforms`` in its fast mode.

The real bot against the fakes that enforce Discord's and Telegram's published limits: the calls
counted at eight times a human pace, then twice the goal (600 Discord, 300 Telegram tables a token) at
a twentieth (Discord: 30 tables) or a tenth (Telegram: 30 tables) of a token's tables and twice a human
pace (the per-token budgets, the bot's and the
fakes', scaled alike): a token carries at least 300 Discord and 150 Telegram tables, and at twice that
the bot receives no 429 of its own pace, loses no message and shows every board within 3 s at p99.
"""

from __future__ import annotations

import logging

import pytest

from bench import platforms


@pytest.mark.asyncio
@pytest.mark.parametrize(("platform", "goal", "scale"), [
    ("discord", 300, "0.05"),
    ("telegram", 150, "0.1"),
])
async def test_a_token_carries_its_tables_and_twice_that_within_the_limits(platform: str, goal: int, scale: str,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    # The share of a token's tables (``scale``) keeps a deal's private cards (six at a table of six) small against
    # the scaled budget, as they are against a whole token's: at 0.01 Telegram's is 0.5 messages a second.
    args = platforms.parse(["--platforms", platform, "--speed", "8", "--load-speed", "2", "--scale", scale,
                            "--hands", "2", "--per-scenario", "1", "--calls-for", "120", "--duration", "30"])
    measured = (await platforms.main_async(args))[platform]
    counted, load = measured.counted, measured.load
    assert counted.hands >= 4, counted
    assert counted.refused == 0, counted.kinds  # counting at one table a kind: far below any limit
    assert measured.tables >= goal, (measured.tables, counted.kinds)
    assert load is not None and load.lags, load
    assert load.refused == 0, f"{load.refused} 429s at twice the load"
    assert load.lost == 0, f"{load.lost} messages lost at twice the load"
    assert platforms.quantile(load.lags, 0.99) <= 3.0, sorted(load.lags)[-5:]
    # the first board of a hand comes with its private cards, not seconds after them
    assert counted.card_lead and max(counted.card_lead) <= 1.5, counted.card_lead
