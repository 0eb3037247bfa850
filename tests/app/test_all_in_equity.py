"""Cards up and equity at an all-in, at the table (issue 23).

When the betting is over because at most one player can still act (rule 13) and two or more hands
are live, the table is shown every live hand face up as the run-out begins, and each live player's
equity after the street the betting ended on and after each street dealt (never on seventh: the
showdown says it). The numbers are engine.equity's, the same as a recount of the stored hand; a
hand played out to seventh street, or won by a fold, shows none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from backends import rows

from adapters.console.app import ScriptSession
from bot.core.config import Settings
from bot.text.render import equity_text
from engine import HandFile, replay_hand
from engine.equity import all_in_equity

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]
EQUITY = re.compile(r"^\[table\] Equity after (\w+) street: (.*)$")
SHARE = re.compile(r"(\S+) (\d+)%")
ORDINAL = {"third": 3, "fourth": 4, "fifth": 5, "sixth": 6}


async def play(db: str, script: list[str]) -> list[str]:
    lines: list[str] = []
    session = await ScriptSession.open(db=db, seed=3, settings=Settings(starting_balance=1000, time_bank=0),
                                       write=lines.append)
    try:
        for line in script:
            await session.feed(line)
    finally:
        await session.close()
    return [line for line in lines if line.startswith("[table] ")]


AGGRESSION = ["ann: raise", "bob: raise", "cat: raise", "ann: call", "bob: call", "cat: call", "ann: bet", "bob: bet",
              "cat: bet", "ann: complete", "bob: complete", "cat: complete", "ann: bring-in", "bob: bring-in",
              "cat: bring-in"]


async def test_a_three_way_all_in_shows_the_hands_and_each_streets_equity(tmp_path: Path) -> None:
    db = str(tmp_path / "allin.db")
    table = await play(db, ["ann: new", "ann: join 25", "bob: join 40", "cat: join 60", "ann: start", "/sleep 6",
                            *AGGRESSION * 4])
    up = next(i for i, line in enumerate(table) if line.startswith("[table] All in: the hands face up — "))
    shown = table[up].split(" — ", 1)[1]
    assert [part.split(" ")[0] for part in shown.split(", ")] == ["ann", "bob", "cat"]
    equities = [(ORDINAL[m.group(1)], m.group(2)) for line in table[up:] if (m := EQUITY.match(line))]
    assert [street for street, _ in equities] == [5, 6]  # the betting ended on fifth street; none on seventh
    last_action = max(i for i, line in enumerate(table[:up]) if re.search(r" (calls|bets|raises) ", line))
    assert table[up + 1].startswith("[table] Equity after fifth street") and last_action < up
    assert table.index("[table] Sixth street: ann 5♦, bob 2♣, cat K♦") == up + 2
    assert table[up + 3].startswith("[table] Equity after sixth street")
    # the numbers are the engine's for the stored hand, and each line adds up to 100% within rounding
    [(text,)] = await rows(db, "SELECT hand_file FROM hands WHERE hand_no = 1")
    counted = all_in_equity(replay_hand(HandFile.from_json(text)))
    for street, shares in equities:
        assert shares == equity_text(counted[street])
        percents = [int(p) for _, p in SHARE.findall(shares.split(" · scoop")[0])]
        assert len(percents) == 3 and abs(sum(percents) - 100) <= 2
    showdown = next(i for i, line in enumerate(table) if " shows " in line)
    assert showdown > up + 3


async def test_no_equity_where_the_betting_went_on_or_a_fold_won(tmp_path: Path) -> None:
    table = await play(str(tmp_path / "calm.db"), [
        "ann: new", "ann: join 400", "bob: join 400", "ann: start", "/sleep 6",
        *["ann: bring-in", "bob: bring-in", "ann: call", "bob: call", "ann: check", "bob: check"] * 6,
        "ann: fold", "bob: fold"])
    assert any(" shows " in line or " takes " in line for line in table)
    assert not any("Equity after" in line or "face up" in line for line in table)
