"""The time bank and the pause of a cash table (issue 22), as a chat transcript on the virtual clock.

The bank runs when the turn timer runs out and is spent by the time used; it is refilled every H hands up to
its size; a player with nothing left in it is acted for as before. A pause stops every clock of the table (the
turn, the bank, the house bots, the next deal) while typed actions are still taken; 'resume' gives each clock
what it had left. Both are stored: a new process on the same database finds them exactly as they stood.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_console import SETTINGS, Table

from bot.core.clock import ManualClock

pytestmark = pytest.mark.usefixtures("store_backend")
BANKED = replace(SETTINGS, time_bank=30)
"""The console's settings (a 60 s turn timer, house bots at once) with the default 30 s time bank."""
PROMPT = re.compile(r"\[table\] (\S+) to act \((?:\d+s|time bank \d+s|paused, \d+s left)\): (.*) \[turn (\S+)\]$")


def to_act(t: Table) -> tuple[str, str]:
    """(player, legal text) of the last "to act" line, whatever its clock says."""
    for line in reversed(t.out):
        m = PROMPT.match(line)
        if m:
            return m.group(1), m.group(2)
    raise AssertionError("nobody to act")


async def passive(t: Table, player: str, legal: str) -> None:
    await t.say(player, "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check")


async def banks(t: Table) -> dict[str, float]:
    return {str(r["user_id"]): float(r["bank"]) for r in await t.store.fetch("SELECT user_id, bank FROM time_banks")}


async def two_players(t: Table) -> None:
    await t.say("ann", "new")
    await t.say("ann", "join 200")
    await t.say("bob", "join 200")


async def turn_of(t: Table, player: str) -> None:
    """Play on (bring in, call, check: nobody bets) until ``player`` is to act."""
    for _ in range(20):
        actor, legal = to_act(t)
        if actor == player:
            return
        await passive(t, actor, legal)
    raise AssertionError(f"{player} never acts")


@pytest.mark.asyncio
async def test_the_bank_runs_when_the_timer_runs_out_is_spent_by_the_time_used_then_a_timeout_as_before(
        tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        await t.start()
        first, _ = to_act(t)
        await t.say(first, "bring-in")
        slow, _ = to_act(t)
        out = await t.wait(59.5)
        assert "time bank" not in out and "ran out of time" not in out
        out = await t.wait(0.5)  # the turn timer runs out: the bank runs, said and shown
        assert f"[table] ⏳ {slow}'s time is up: their time bank runs (30 s left)." in out
        assert re.search(rf"\[table\] {slow} to act \(time bank 30s\): ", out), out
        assert "ran out of time" not in await t.wait(12)
        await t.say(slow, "call")  # 12 s of the bank used: 18 left, stored with the call
        assert await banks(t) == {slow: 18.0} and t.runtime.clocks.banks == {slow: 18.0}
        await turn_of(t, slow)
        assert f"{slow}'s time is up: their time bank runs (18 s left)" in await t.wait(60)
        assert "ran out of time" not in await t.wait(17.9)
        out = await t.wait(0.1)  # 60 + 18 s: the bank is empty, and the player is acted for as today
        assert f"[table] {slow} ran out of time." in out and f"{slow} checks" in out
        assert await banks(t) == {slow: 0.0}
        await turn_of(t, slow)
        assert "ran out of time" not in await t.wait(59.9)
        out = await t.wait(0.1)  # nothing left in the bank: out of time when the timer runs out
        assert f"[table] {slow} ran out of time." in out and "time bank" not in out
        other = "bob" if slow == "ann" else "ann"
        assert other not in await banks(t)  # a bank never used is full, and stored nowhere


@pytest.mark.asyncio
async def test_the_bank_is_refilled_every_h_hands_up_to_its_size(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        out = await t.say("ann", "config timebank=10 timebank_refill=4/2")
        assert "[table] Time bank: 10 s for each player, 4 s back every 2 hands (every bank is full now)." in out
        await t.start()
        seen: list[float] = []
        slow = ""
        for no in range(1, 8):
            first, _ = to_act(t)
            await t.say(first, "bring-in")
            folder, _ = to_act(t)
            if no == 1:  # the second to act uses 9 s of the bank, then folds
                slow = folder
                await t.wait(69)
            await t.say(folder, "fold")
            assert t.runtime.table.hand_no == no and not t.runtime.playing
            seen.append((await banks(t))[slow])
            assert f"Hand #{no + 1}" in await t.wait(5)
        assert seen == [1.0, 5.0, 5.0, 9.0, 9.0, 10.0, 10.0]  # +4 after hands 2, 4, 6; never past 10
        assert t.runtime.clocks.bank(slow) == 10.0


@pytest.mark.asyncio
async def test_pause_stops_the_turn_and_the_bank_and_resume_gives_each_what_it_had_left(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        await t.start()
        await t.wait(20)
        player, _ = to_act(t)
        assert "Only the table's creator or an admin can do that." in await t.say("bob", "pause")
        assert "The table is not paused." in await t.say("ann", "resume")
        out = await t.say("ann", "pause")
        assert "[table] ⏸ ann paused the table: the clocks stand still and no new hand is dealt." in out
        assert re.search(rf"\[table\] {player} to act \(paused, 40s left\): ", out), out
        assert "[dm ann] Paused. 'resume' starts the clocks again." in out
        assert "The table is paused already (ann paused it)" in await t.say("ann", "pause")
        assert "Only the table's creator or an admin can do that." in await t.say("bob", "resume")
        board = await t.say("bob", "board")
        assert re.search(r"⏸ Paused by ann since \d\d:\d\d UTC", board), board
        assert t.clock.pending == [] or all(when > t.clock.now() + 10_000 for when in t.clock.pending)
        assert await t.wait(1000) == ""  # no timer, no bank, nothing
        out = await t.say("ann", "resume")
        assert "[table] ▶ ann resumed the table: the clocks go on where they stood." in out
        assert re.search(rf"\[table\] {player} to act \(40s\): ", out), out
        assert "time bank" not in await t.wait(39.5)
        assert f"{player}'s time is up: their time bank runs (30 s left)." in await t.wait(0.5)
        await t.wait(10)
        await t.say("ann", "pause")  # during the bank: 20 s left in it
        assert await t.wait(500) == ""
        await t.say("ann", "resume")
        assert "ran out of time" not in await t.wait(19.9)
        assert f"{player} ran out of time." in await t.wait(0.1)
        assert (await banks(t))[player] == 0.0  # 30 s of the bank used, not a second of the pauses


@pytest.mark.asyncio
async def test_a_paused_hand_is_played_out_by_agreement_and_the_next_is_dealt_only_after_resume(
        tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        await t.say("ann", "start")  # the deck's commitment; the deal in 5 s
        await t.wait(2)
        await t.say("ann", "pause")
        assert "Hand #1" not in await t.wait(100)  # the next deal waits too
        await t.say("ann", "resume")
        assert "Hand #1" not in await t.wait(2.9)
        assert "Hand #1: ann, bob." in await t.wait(0.1)  # the 3 s it had left
        await t.say("ann", "pause")
        rt = t.runtime
        for _ in range(40):  # typed actions are taken, the clocks stand still
            if not rt.playing:
                break
            player, legal = to_act(t)
            await passive(t, player, legal)
            await t.wait(300)
        assert rt.hand is not None and rt.hand.is_over and "ran out of time" not in "\n".join(t.out)
        assert "Hand #2" not in await t.wait(100)
        await t.say("ann", "resume")
        assert "Hand #2" not in await t.wait(4.9)
        assert "Hand #2: ann, bob." in await t.wait(0.1)


@pytest.mark.asyncio
async def test_pause_stops_the_house_bots(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=replace(BANKED, bot_delay=1.0)) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 200")
        await t.say("ann", "addbot Robo")
        await t.say("ann", "addbot Tin")
        await t.start()
        rt = t.runtime
        for _ in range(20):
            player, legal = to_act(t)
            if player != "ann":
                break
            await passive(t, player, legal)
        assert rt.hand is not None
        await t.say("ann", "pause")
        actions = len(rt.hand.actions)
        await t.wait(100)
        assert len(rt.hand.actions) == actions and rt.table.hand_no == 1  # the bot waits
        await t.say("ann", "resume")
        await t.wait(0.9)
        assert len(rt.hand.actions) == actions
        await t.wait(0.1)
        assert len(rt.hand.actions) == actions + 1  # its second, and it acts


@pytest.mark.asyncio
async def test_a_pause_and_a_running_bank_are_as_they_stood_after_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    async with Table(tmp_path / "t.db", clock=clock, settings=BANKED) as t:
        await two_players(t)
        await t.start()
        await t.wait(20)
        player, _ = to_act(t)
        await t.say("ann", "pause")
        await t.wait(300)
    async with Table(tmp_path / "t.db", clock=clock, settings=BANKED) as t:  # a new process, still paused
        assert t.runtime.clocks.paused and t.runtime.clocks.paused_by == "ann"
        assert re.search(rf"{player} to act \(paused, 40s left\)", "\n".join(t.out)), t.out
        assert await t.wait(1000) == ""
        assert "The table is paused already (ann paused it)" in await t.say("ann", "pause")
        await t.say("ann", "resume")
        assert "time bank" not in await t.wait(39.9)
        assert f"{player}'s time is up: their time bank runs (30 s left)." in await t.wait(0.1)
        await t.wait(12)
    async with Table(tmp_path / "t.db", clock=clock, settings=BANKED) as t:  # the bank ran 12 s of its 30
        assert f"{player}'s time is up: their time bank runs (18 s left)." in "\n".join(t.out)
        assert "ran out of time" not in await t.wait(17.9)
        assert f"{player} ran out of time." in await t.wait(0.1)
        assert (await banks(t))[player] == 0.0


@pytest.mark.asyncio
async def test_the_time_bank_settings_are_checked_and_a_sit_and_go_has_neither(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        assert "The time bank must be 0 to 300 seconds." in await t.say("ann", "config timebank=301")
        assert "0 to 300 seconds every 1 to 1000 hands" in await t.say("ann", "config timebank_refill=5/0")
        assert "timebank_refill takes seconds/hands, such as 5/10" in await t.say("ann", "config timebank_refill=5")
        assert "Only the table's creator or an admin can do that." in await t.say("bob", "config timebank=5")
        assert t.runtime.clocks.timebank == 30
        out = await t.say("ann", "config timebank=0")
        assert "[table] No time bank: a player whose timer runs out is acted for at once." in out
        await t.start()
        await t.say(to_act(t)[0], "bring-in")
        slow, _ = to_act(t)
        assert f"{slow} ran out of time." in await t.wait(60)
        await t.say("ann", "stop")
    async with Table(tmp_path / "s.db", settings=BANKED) as t:
        await t.say("ann", "tourney new seats=2 buyin=10")
        assert "A sit-and-go has no pause and no time bank" in await t.say("ann", "pause")
        assert "A sit-and-go has no pause and no time bank" in await t.say("ann", "config timebank_refill=5/10")


@pytest.mark.asyncio
async def test_a_new_bank_size_during_a_running_bank_counts_what_the_turn_used(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", settings=BANKED) as t:
        await two_players(t)
        await t.start()
        slow, _ = to_act(t)
        assert f"{slow}'s time is up: their time bank runs (30 s left)." in await t.wait(60)
        await t.wait(10)
        out = await t.say("ann", "config timebank=60")  # every bank full again: 60 s, 10 of them used already
        assert f"{slow}'s time is up: their time bank runs (50 s left)." in out
        assert "ran out of time" not in await t.wait(49.9)
        assert f"{slow} ran out of time." in await t.wait(0.1)
        assert (await banks(t))[slow] == 0.0
