"""A mix table through the console, hand by hand (GAMES.md G8): Razz, then Stud with a pair on fourth
street and the double bet (G5), then Stud Hi-Lo, then Razz again, one hand each; the whole chat is
written to tests/artefacts/mix_transcript.txt (git-ignored) for the notes. And a razz hand stopped
by a crash mid-way resumes exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from backends import Backend
from test_console import Table

from bot.chips import wallets as chip_wallets
from engine.games import Game

pytestmark = pytest.mark.usefixtures("store_backend")

ARTEFACT = Path(__file__).resolve().parents[1] / "artefacts" / "mix_transcript.txt"
SEED = 12
"""This seed's second hand (Stud) shows a pair on fourth street with a human player to act
(found by trying seeds in order; the test checks it still does)."""


async def _passive(t: Table, *, until_street: int = 8) -> None:
    """Bring in, call or check for the humans (the house bot acts by itself) until the street."""
    for _ in range(80):
        hand = t.runtime.hand
        if hand is None or hand.is_over or hand.street >= until_street:
            return
        player, legal, _ = t.to_act()
        await t.say(player, "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check")
    raise AssertionError("the hand does not end")


@pytest.mark.asyncio
async def test_a_mix_table_goes_from_razz_to_stud_with_a_double_bet_to_stud_hi_lo(tmp_path: Path,
                                                                                  store_backend: Backend) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 100")
        await t.say("bob", "join 100")
        await t.say("ann", "addbot Robo")
        total = await chip_wallets.chip_total(t.store)
        out = await t.say("ann", "config game=mix mix_hands=1")
        assert "The table now deals the stud mix (Razz, Stud, Stud Hi-Lo; 1 hand each)." in out
        assert "Stud mix, Razz next" in await t.say("ann", "board")

        out = await t.start()  # hand 1: Razz
        assert "Next: Razz for 1 hand." in out
        assert out.index("Next: Razz for 1 hand.") < out.index("Hand #1 · Razz: ")
        assert "Hand #1 · Razz · third street" in await t.say("ann", "board")
        assert "[dm ann] drawing to " in out or "[dm ann] Low: " in out  # the razz line: the low alone
        await _passive(t)
        razz = "\n".join(t.out)
        assert " shows " not in razz or "; no low" not in razz.split("Hand #1 · Razz: ")[1]

        out = await t.wait(5)  # hand 2: Stud
        assert "Next: Stud for 1 hand." in out and out.index("Next: Stud") < out.index("Hand #2 · Stud: ")
        assert "[dm ann] High: " in out and " · " not in out.split("[dm ann] High: ")[1].splitlines()[0]
        await _passive(t, until_street=4)
        hand = t.runtime.hand
        assert hand is not None and hand.game is Game.STUD and hand.street == 4 and hand.double_bet_open
        player, legal, _ = t.to_act()
        assert player in ("ann", "bob") and legal == "check · bet 5 · bet 10"
        assert "Hand #2 · Stud · fourth street" in await t.say(player, "board")
        assert f"{player} bets 10 (the double bet: a pair shows)" in await t.say(player, "bet 10")
        await _passive(t)

        out = await t.wait(5)  # hand 3: Stud Hi-Lo
        assert "Next: Stud Hi-Lo for 1 hand." in out
        assert "Hand #3 · Stud Hi-Lo · third street" in await t.say("ann", "board")
        await _passive(t)

        out = await t.wait(5)  # hand 4: Razz again
        assert "Next: Razz for 1 hand." in out
        await _passive(t)
        assert await chip_wallets.chip_total(t.store) == total

        files = [json.loads(await t.store.hand_file(t.runtime.table.id, no) or "{}") for no in (1, 2, 3, 4)]
        assert [f.get("game", "stud8") for f in files] == ["razz", "stud", "stud8", "razz"]
        assert "bet-big" in json.dumps(files[1]["actions"])
    if store_backend.name == "sqlite":
        ARTEFACT.parent.mkdir(parents=True, exist_ok=True)
        ARTEFACT.write_text("\n".join(t.out) + "\n", encoding="utf-8")


def _no_clock(board: str) -> str:
    return re.sub(r"\(\d+s\)", "(…)", board)


@pytest.mark.asyncio
async def test_a_razz_hand_stopped_by_a_crash_resumes_exactly(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 100")
        await t.say("bob", "join 100")
        await t.say("ann", "config game=razz")
        await t.start()
        await _passive(t, until_street=5)
        hand = t.runtime.hand
        assert hand is not None and hand.game is Game.RAZZ and hand.street == 5
        actions, cards, stacks = list(hand.actions), [list(c) for c in hand.cards], list(hand.stacks)
        total = await chip_wallets.chip_total(t.store)
        board = await t.say("ann", "board")
        view = await t.say("ann", "cards")
    async with Table(tmp_path / "t.db", seed=SEED) as t:  # a new process on the same database
        hand = t.runtime.hand
        assert hand is not None and hand.game is Game.RAZZ
        assert list(hand.actions) == actions and [list(c) for c in hand.cards] == cards and hand.stacks == stacks
        assert await chip_wallets.chip_total(t.store) == total
        assert _no_clock(await t.say("ann", "board")) == _no_clock(board)  # (a restart gives the turn's time again)
        assert await t.say("ann", "cards") == view
        await _passive(t)
        assert t.runtime.hand is not None and t.runtime.hand.is_over
        assert (json.loads(await t.store.hand_file(t.runtime.table.id, 1) or "{}"))["game"] == "razz"
