"""A long session keeps no more than it needs: the console forgets what it printed, and the
soak benchmark (``python -m bench.soak``) runs (its figures are read, not asserted)."""

from __future__ import annotations

import gc
import subprocess
import sys
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from adapters.console.app import ScriptSession
from bot.core.clock import ManualClock
from bot.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=10**9,
                   time_bank=0)


async def _play(session: ScriptSession, hands: int) -> None:
    rt = session.bot.tables["console:main"]
    target = rt.table.hand_no + hands
    while rt.table.hand_no < target:
        await session.feed("/sleep 5")
        for _ in range(4 - len(rt.table.seats)):
            await session.feed("host: addbot")


@pytest.mark.asyncio
async def test_the_console_keeps_none_of_the_lines_it_printed(tmp_path: Path) -> None:
    printed = [0]

    def terminal(line: str) -> None:  # counts the lines, keeps none
        printed[0] += 1

    session = await ScriptSession.open(db=str(tmp_path / "t.db"), seed=5, settings=SETTINGS, write=terminal)
    try:
        for line in ("host: new", "host: addbot", "host: addbot", "host: addbot", "host: addbot", "host: start"):
            await session.feed(line)
        await _play(session, 20)
        seen = printed[0]
        chat_py = str(ROOT / "adapters" / "console" / "chat.py")
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, chat_py)])
            await _play(session, 60)
            gc.collect()
            after = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, chat_py)])
        finally:
            tracemalloc.stop()
        kept = sum(s.size_diff for s in after.compare_to(before, "filename"))
        # 60 hands print some 2,000 lines (about 150 kB of str) through the console's code
        assert session.bot.tables["console:main"].table.hand_no >= 80 and printed[0] - seen > 1_000
        assert kept < 4_000, f"the console kept {kept} bytes of 60 hands' output"
        # what say() returns is still the lines that the command caused
        lines = await session.chat.say("host", "board")
        assert lines and all(line.startswith("[table] ") for line in lines)
    finally:
        await session.close()


def test_the_soak_benchmark_runs_and_prints_its_figures() -> None:
    run = subprocess.run([sys.executable, "-m", "bench.soak", "--hands", "300", "--every", "100", "--warmup", "100"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    samples = [line.split() for line in out if line.strip() and line.split()[0].replace(",", "").isdigit()]
    assert [s[0] for s in samples] == ["0", "100", "200", "300"]
    assert all(float(s[1]) > 0 for s in samples)
    assert any(line.startswith("growth after the first 100 hands: ") and " MB over 200 hands" in line for line in out)
    assert "Traceback" not in run.stderr


@pytest.mark.asyncio
async def test_the_manual_clock_forgets_cancelled_timers_without_waiting_for_their_time() -> None:
    clock = ManualClock()
    fired: list[int] = []

    async def fire(n: int) -> None:
        fired.append(n)

    handle = None
    for n in range(10_000):  # a turn timer re-armed at every action of a script that never sleeps
        if handle is not None:
            handle.cancel()
        handle = clock.call_at(clock.now() + 60, lambda n=n: fire(n))  # type: ignore[misc]
    assert len(clock._heap) <= 128
    assert clock.pending == [clock.now() + 60]
    await clock.advance(60)
    assert fired == [9_999]
