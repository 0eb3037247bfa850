"""Stopping in order: timers and house bots stop, work in flight finishes, and only then
does the database close; a SIGTERM mid-hand exits 0 and the hand resumes on restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import telegram_harness as tg
import test_crash  # its Process pumps a child's output into a queue
from backends import Backend, rows, rows_now
from fakes.telegram_server import FakeBotAPI
from skip_clock import SkipClock, pass_the_pause
from waiting import until

import adapters.run
from adapters.console.chat import ConsoleMessenger
from bot.bootstrap import build_bot
from bot.core.clock import RealClock
from bot.core.config import Settings
from bot.core.ports import Inbound
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite

pytestmark = pytest.mark.usefixtures("store_backend")

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = replace(Settings(), bot_delay=0.01, next_hand_delay=0.0, turn_timer=5, starting_balance=1000,
                   time_bank=0)


def _msg(user: str, text: str) -> Inbound:
    return Inbound(platform="console", community="local", channel="main", user=user, name=user, text=text,
                   admin=False)


async def _actions(db: Path) -> int:
    [(count,)] = await rows(db, "SELECT COUNT(*) FROM actions")
    return int(count)


@pytest.mark.asyncio
async def test_a_timer_that_fires_during_the_stop_finishes_before_the_database_closes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
        store_backend: Backend) -> None:
    caplog.set_level(logging.INFO)
    db = tmp_path / "stop.db"
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    printed: list[str] = []
    bot = build_bot(SETTINGS, store=store, messenger=ConsoleMessenger(printed.append), clock=RealClock())
    await bot.start()
    for text in ("new", "addbot", "addbot", "addbot"):
        assert (await bot.handle(_msg("host", text))).ok

    # The first house bot's decision (a real timer, 10 ms after the deal) is held just
    # before it is written to the database, until the stop has begun.
    entered, gate = asyncio.Event(), asyncio.Event()
    record = store.record_action

    async def held(**kw: Any) -> None:
        entered.set()
        await gate.wait()
        await record(**kw)

    monkeypatch.setattr(store, "record_action", held)
    assert (await bot.handle(_msg("host", "start"))).ok
    await asyncio.wait_for(entered.wait(), 5)

    stopping = asyncio.create_task(bot.close())
    await asyncio.sleep(0.05)  # nothing is to happen: the stop waits for the timer held in flight
    assert not stopping.done(), "the stop did not wait for the timer in flight"
    refused = await bot.handle(_msg("ann", "join"))  # new work meanwhile: a friendly answer, nothing done
    assert not refused.ok and refused.code == "stopping" and "restarting" in refused.text
    gate.set()
    await asyncio.wait_for(stopping, 5)
    after = await _actions(db)
    await asyncio.sleep(0.1)  # ten bot delays: no timer acts any more
    assert await _actions(db) == after == 1
    await store.close()
    wal = tmp_path / "stop.db-wal"  # closed cleanly: checkpointed, nothing left in the WAL to recover
    assert not wal.exists() or wal.stat().st_size == 0
    assert (tmp_path / "stop.db").exists() != store_backend.postgresql  # no file at all on PostgreSQL

    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not problems, [r.getMessage() for r in problems]
    assert "ann" not in "\n".join(printed)
    if not store_backend.postgresql:
        with contextlib.closing(sqlite3.connect(db)) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert await rows(db, "SELECT status FROM hands") == [("playing",)]

    # the hand resumes where it stopped
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    bot = build_bot(SETTINGS, store=store, messenger=ConsoleMessenger(printed.append), clock=RealClock())
    await bot.start()
    rt = bot.tables["console:main"]
    assert rt.hand is not None and len(rt.hand.actions) == 1 and rt.table.hand_no == 1
    await until(lambda: rt.table.hand_no > 1, timeout=4, what="the house bots to play on")
    assert rt.table.hand_no > 1, "the house bots did not play on"
    await bot.close()
    await store.close()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.asyncio
async def test_a_stop_waits_only_so_long_for_work_that_does_not_end(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    store = await open_sqlite(str(tmp_path / "stuck.db"), schema=MIGRATIONS)
    bot = build_bot(SETTINGS, store=store, messenger=ConsoleMessenger(lambda line: None), clock=RealClock())
    await bot.start()
    entered, stuck = asyncio.Event(), asyncio.Event()

    async def never(*args: Any, **kw: Any) -> None:
        entered.set()
        await stuck.wait()

    monkeypatch.setattr(store, "leaderboard", never)
    command = asyncio.create_task(bot.handle(_msg("ann", "top")))
    await asyncio.wait_for(entered.wait(), 5)  # the command is at work, and stuck
    started = time.monotonic()
    await bot.close(grace=0.2)
    assert 0.15 < time.monotonic() - started < 2
    assert "stopping with 1 commands or timers still running after 0.2s" in caplog.text
    stuck.set()
    await command
    await store.close()


class Console(test_crash.Process):
    """``studbot`` with no platform token: the console table against house bots, on a real clock."""

    def __init__(self, db: Path, cwd: Path, backend: Backend) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
        env.update(PYTHONUNBUFFERED="1", STUDBOT_BOT_DELAY_MS="20", STUDBOT_TURN_TIMER="5", STUDBOT_TIME_BANK="0",
                   STUDBOT_NEXT_HAND_DELAY="0", LOG_LEVEL="INFO", **backend.env(db))
        self.proc = subprocess.Popen([sys.executable, "-m", "adapters.run", "--user", "ann"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def terminate(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


def test_sigterm_mid_hand_exits_cleanly_and_the_hand_resumes_on_restart(tmp_path: Path,
                                                                         store_backend: Backend) -> None:
    """The console in a process of its own (STUDBOT_DATABASE_URL on PostgreSQL: make run's store)."""
    db = tmp_path / "console.db"
    first = Console(db, tmp_path, store_backend)
    try:
        first.read_until(lambda line: line.startswith("Hand #1:"))
        first.read_until(lambda line: " to act" in line)  # the bots act every 20 ms: timers are firing
        time.sleep(0.05)  # a fixed moment on purpose: the stop lands wherever the timers happen to be
        code, err = first.terminate()
    finally:
        if first.proc.poll() is None:
            first.proc.kill()
    assert code == 0, err
    assert "Traceback" not in err and "no active connection" not in err and " ERROR " not in err, err
    assert "stopping" in err
    playing = rows_now(db, "SELECT hand_no FROM hands WHERE status = 'playing'")
    [(recorded,)] = rows_now(db, "SELECT COUNT(*) FROM actions")
    assert playing == [(1,)], "the stop did not come mid-hand"
    assert (tmp_path / "console.db").exists() != store_backend.postgresql  # the process used the backend asked for

    second = Console(db, tmp_path, store_backend)
    try:
        second.read_until(lambda line: line.startswith("Hand #2:"), timeout=60)  # ann times out; the bots go on
        code, err = second.terminate()
    finally:
        if second.proc.poll() is None:
            second.proc.kill()
    assert code == 0, err
    assert f"restored hand #1 after {recorded} actions" in err
    assert "Traceback" not in err and "no active connection" not in err and " ERROR " not in err, err


@pytest.mark.asyncio
async def test_telegram_a_stop_during_a_house_bot_turn(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The bootstrap (``adapters.run.serve``) against the fake Bot API: the stop waits for the
    house bot's decision in flight, answers a command that comes meanwhile, and closes cleanly."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "tg.db"
    entered, gate = asyncio.Event(), asyncio.Event()
    record = Store.record_action

    async def held(self: Store, **kw: Any) -> None:
        entered.set()
        await gate.wait()
        await record(self, **kw)

    api = await FakeBotAPI().start()
    try:
        api.group(tg.GROUP)
        for uid, name in tg.NAMES.items():
            api.user(uid, name)
        monkeypatch.setattr(adapters.run, "RealClock", SkipClock)
        served = tg.Served(api, db, monkeypatch)
        async with served:
            await tg.open_table(api, (tg.ANN,))
            for _ in range(2):
                await tg.say(api, tg.ANN, "/addbot")
            monkeypatch.setattr(Store, "record_action", held)
            await tg.say(api, tg.ANN, "/stud start")
            await pass_the_pause()  # the deal, after the table's pause
            await asyncio.wait_for(entered.wait(), 5)
            served.stop.set()  # what SIGTERM does
            await asyncio.sleep(0.3)  # nothing is to happen: the stop waits for the decision held in flight
            assert not served.task.done(), "the stop did not wait for the house bot in flight"
            api.command(tg.GROUP, tg.ANN, "/join")
            await api.wait_for(lambda: any("restarting" in str(c.params.get("text")) for c in api.sent("sendMessage")),
                               what="the answer while stopping")
            gate.set()
        monkeypatch.setattr(Store, "record_action", record)
        bad = [r for r in caplog.records if r.levelno >= logging.ERROR or "no active connection" in r.getMessage()]
        assert not bad, [r.getMessage() for r in bad]
        assert await rows(db, "SELECT status FROM hands") == [("playing",)]
        assert await rows(db, "SELECT COUNT(*) FROM actions") == [(1,)]
        assert await rows(db, "SELECT COUNT(*) FROM seats WHERE user_id = ?", (str(tg.ANN),)) == [(0,)]
        async with tg.Served(api, db, monkeypatch) as again:  # the bots play the hand out after the restart
            await api.wait_for(lambda: again.runtime().hand.is_over, what="the restored hand to end")
    finally:
        await api.close()
