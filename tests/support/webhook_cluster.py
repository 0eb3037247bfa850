"""Telegram webhook workers as separate processes on one PostgreSQL database, behind one URL.

The test process runs the fake Bot API (tests/support/fakes/telegram_server.py); each worker is
``tests/support/procs/webhook_worker.py`` (the real bootstrap) in its own process, in cluster mode
(``STUDBOT_INSTANCE``), listening on a port of its own; the fake POSTs every update to the worker
the test names (a load balancer's choice) and ``deliver_again`` is Telegram's retry. A worker may be
started armed to kill itself (SIGKILL) at a named point of the code (bot/core/killpoints.py): the test
arms it (creates the file) just before the update it must die in.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from fakes.telegram_server import FakeBotAPI
from telegram_harness import free_port

from bot.store.dialect import placeholders
from engine import Action, Deck, DeckDealer, Hand, Stakes
from engine.cards import Card

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "tests" / "support"
LEASE = 2


def hook(port: int) -> str:
    return f"http://127.0.0.1:{port}/tg/hook"


class Worker:
    """One webhook worker process."""

    def __init__(self, *, fake: FakeBotAPI, dsn: str, name: str, url: str | None, register: bool, log_dir: Path,
                 kill_at: str | None = None, turn_timer: int = 60, next_hand_delay: int = 600) -> None:
        self.name = name
        self.port = free_port()
        self.hook = hook(self.port)
        self.armed = log_dir / f"{name}.armed"
        self.log = log_dir / f"{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "STUDBOT_"))}
        env.update({
            "PYTHONPATH": f"{ROOT}{os.pathsep}{SUPPORT}", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "INFO",
            "TELEGRAM_TOKEN": fake.token, "TELEGRAM_BASE_URL": fake.base_url, "TELEGRAM_WEBHOOK_URL": url or self.hook,
            "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1", "TELEGRAM_WEBHOOK_PORT": str(self.port),
            "TELEGRAM_WEBHOOK_REGISTER": "1" if register else "0",
            "STUDBOT_DATABASE_URL": dsn, "STUDBOT_INSTANCE": name, "STUDBOT_LEASE_SECONDS": str(LEASE),
            "STUDBOT_TURN_TIMER": str(turn_timer), "STUDBOT_TIME_BANK": "0", "STUDBOT_BOT_DELAY_MS": "0",
            "STUDBOT_NEXT_HAND_DELAY": str(next_hand_delay), "STUDBOT_STARTING_BALANCE": "1000",
        })
        if kill_at is not None:
            env.update({"STUDBOT_KILL_AT": kill_at, "STUDBOT_KILL_ARMED": str(self.armed)})
        with self.log.open("w") as err:  # run in the test's directory: no .env of the checkout is read
            self.proc = subprocess.Popen([sys.executable, str(SUPPORT / "procs" / "webhook_worker.py")], cwd=log_dir,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)

    async def listening(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, self.tail()
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                assert time.monotonic() < deadline, f"{self.name} does not listen: {self.tail()}"
                await asyncio.sleep(0.1)
                continue
            writer.close()
            await writer.wait_closed()
            return

    def arm(self) -> None:
        """Die at the kill point the next time it is passed."""
        self.armed.write_text("armed")

    async def died(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            assert time.monotonic() < deadline, f"{self.name} did not reach its kill point: {self.tail()}"
            await asyncio.sleep(0.05)
        assert self.proc.returncode == -9, (self.proc.returncode, self.tail())

    def tail(self) -> str:
        return self.log.read_text()[-3000:] if self.log.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Db:
    """The test's own reads of the workers' database."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    @classmethod
    async def connect(cls, dsn: str) -> Db:
        return cls(await asyncpg.connect(dsn))

    async def read(self, sql: str, *params: object) -> list[Any]:
        return list(await self.conn.fetch(placeholders(sql), *params))

    async def close(self) -> None:
        await self.conn.close()

    async def actions(self, chat: int) -> list[tuple[int, int, str]]:
        """(hand_no, seq, action) of every action stored at the chat's table."""
        rows = await self.read("SELECT h.hand_no, a.seq, a.action FROM actions a JOIN hands h ON h.id = a.hand_id "
                               "JOIN tables t ON t.id = h.table_id WHERE t.channel = ? ORDER BY h.hand_no, a.seq",
                               str(chat))
        return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    async def update_done(self, update_id: int) -> bool | None:
        rows = await self.read("SELECT done FROM platform_updates WHERE platform = 'telegram' AND update_id = ?",
                               update_id)
        return None if not rows else bool(rows[0][0])

    async def holder(self, chat: int) -> str | None:
        rows = await self.read("SELECT l.owner FROM table_leases l JOIN tables t ON t.id = l.table_id "
                               "WHERE t.channel = ? AND t.open = 1", str(chat))
        return str(rows[0][0]) if rows else None

    async def holder_is(self, chat: int, owner: str) -> bool:
        return await self.holder(chat) == owner

    async def to_act(self, chat: int) -> tuple[int, str, list[str]] | None:
        """Who is to act at the chat's hand in progress (their user id), the turn token, their legal actions."""
        rows = await self.read("SELECT h.id, h.setup, h.hand_no FROM hands h JOIN tables t ON t.id = h.table_id "
                               "WHERE t.channel = ? AND t.open = 1 AND h.status = 'playing'", str(chat))
        if not rows:
            return None
        setup = json.loads(rows[0]["setup"])
        acts = [r["action"] for r in await self.read("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq",
                                                     rows[0]["id"])]
        deck = Deck.from_cards([Card.from_str(c) for c in setup["deck"]])
        hand = Hand(stakes=Stakes.from_dict(setup["stakes"]), names=[p[2] for p in setup["players"]],
                    stacks=[p[3] for p in setup["players"]], dealer=DeckDealer(deck))
        for a in acts:
            hand.act(Action(a))
        if hand.is_over or hand.actor is None:
            return None
        return (int(setup["players"][hand.actor][1]), f"{rows[0]['hand_no']}.{len(acts)}",
                [a.value for a in hand.legal_actions()])


async def post(fake: FakeBotAPI, update_id: int, to: str) -> tuple[int | None, float]:
    """Telegram's retry of an update, to one worker: (the HTTP status or None if the worker died
    answering it, seconds it took)."""
    started = time.monotonic()
    try:
        status = await fake.deliver_again(update_id, to=to)
    except aiohttp.ClientError:
        return None, time.monotonic() - started
    return status, time.monotonic() - started


def command(fake: FakeBotAPI, chat: int, uid: int, text: str, *, to: Worker) -> int:
    """A user types a command; Telegram POSTs it to the worker ``to``. The update's id."""
    fake.balancer = [to.hook]
    fake.command(chat, uid, text)
    return max(fake.pushed)


def press(fake: FakeBotAPI, chat: int, message_id: int, uid: int, *, data: str, to: Worker) -> int:
    """A user presses a button (its callback data) of a message; POSTed to ``to``. The update's id."""
    fake.balancer = [to.hook]
    fake.press(chat, message_id, uid, data=data)
    return max(fake.pushed)


async def delivered(fake: FakeBotAPI, update_id: int, *, timeout: float = 30.0) -> int:
    """Wait until a worker answered the update's POST; its HTTP status."""
    await fake.wait_for(lambda: any(u == update_id for u, _ in fake.deliveries), timeout=timeout,
                        what=f"the answer to update {update_id}")
    return next(s for u, s in fake.deliveries if u == update_id)
