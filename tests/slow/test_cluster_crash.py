"""Cluster crash test: two bot processes on one database (PostgreSQL, then SQLite), one of them
killed (SIGKILL) at random points 20 times and restarted, under the same instance name.

Four tables of house bots play by themselves (their timers: house bots and the next deal), and two
tables have a human, ``ann``, whose presses (with the turn token) go to either process at random:
to the holder, or forwarded to it. At each kill the tables the victim held must go on: taken over
by the survivor once their leases expire, or taken back by the victim when it restarts before that;
the time from the kill to the next action stored at each of them is measured. Afterwards, as in
tests/slow/test_crash.py: every hand finished, ``studbot audit --replay`` passes, the chips in the
database never changed, every press acknowledged is stored at its turn once, and none twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.store.dialect import placeholders
from engine import Action, Deck, DeckDealer, Hand, Stakes
from engine.cards import Card

ROOT = Path(__file__).resolve().parents[2]
PROCS = ROOT / "tests" / "support" / "procs"
KILLS = int(os.environ.get("STUD_CLUSTER_KILLS", "20"))
LEASE = 2.0
TURN = 5
BOT_TABLES = ("b0", "b1", "b2", "b3")
HUMAN_TABLES = ("h0", "h1")


class Db:
    """The test's own reads of the database the workers share: a SQLite file or a PostgreSQL DSN."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.pg = where.startswith("postgresql://")
        if self.pg:
            import asyncpg

            self.loop = asyncio.new_event_loop()
            self.conn = self.loop.run_until_complete(asyncpg.connect(where))

    def read(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        if self.pg:
            return list(self.loop.run_until_complete(self.conn.fetch(placeholders(sql), *params)))
        with contextlib.closing(sqlite3.connect(self.where, timeout=30)) as con:
            con.row_factory = sqlite3.Row
            return list(con.execute(sql, params))

    def close(self) -> None:
        if self.pg:
            self.loop.run_until_complete(self.conn.close())
            self.loop.close()

    @property
    def env(self) -> dict[str, str]:
        """How a process names this database."""
        return {"STUDBOT_DATABASE_URL": self.where} if self.pg else {"STUDBOT_DB": self.where}


class Worker:
    def __init__(self, db: Db, name: str, log_dir: Path, n: int) -> None:
        env = {**os.environ, **db.env, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), "STUDBOT_INSTANCE": name,
               "STUDBOT_LEASE_SECONDS": str(int(LEASE)), "STUDBOT_TURN_TIMER": str(TURN), "STUDBOT_TIME_BANK": "0",
               "STUDBOT_BOT_DELAY_MS": "150", "STUDBOT_NEXT_HAND_DELAY": "1", "STUDBOT_STARTING_BALANCE": "1000"}
        self.name = name
        self.log = log_dir / f"{name}-{n}.log"
        with self.log.open("w") as err:
            self.proc = subprocess.Popen([sys.executable, str(PROCS / "cluster_worker.py")],
                                         cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         text=True, env=env)
        self.replies: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        line = self.replies.get(timeout=60)
        assert line == "[ready]", (line, self.log.read_text()[-2000:])

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(line.rstrip("\n"))
        self.replies.put(None)

    def send(self, ident: int, channel: str, user: str, text: str) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, OSError):
            self.proc.stdin.write(f"{ident} {channel} {user}: {text}\n")
            self.proc.stdin.flush()

    def answers(self) -> list[tuple[int, bool, str]]:
        out = []
        while True:
            try:
                line = self.replies.get_nowait()
            except queue.Empty:
                return out
            if line and line.startswith("[reply "):
                ident, verdict, code = line[len("[reply "):].replace("]", "").split(" ")
                out.append((int(ident), verdict == "ok", code))

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0, self.log.read_text()[-2000:]


def ann_to_act(db: Db, channel: str) -> tuple[str, list[str]] | None:
    """The turn token and ann's legal actions, if the hand at ``channel`` waits for her."""
    rows = db.read("SELECT h.id, h.setup, h.hand_no FROM hands h JOIN tables t ON t.id = h.table_id "
                   "WHERE t.channel = ? AND t.open = 1 AND h.status = 'playing'", (channel,))
    if not rows:
        return None
    setup = json.loads(rows[0]["setup"])
    acts = [r["action"] for r in db.read("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq",
                                      (rows[0]["id"],))]
    deck = Deck.from_cards([Card.from_str(c) for c in setup["deck"]])
    hand = Hand(stakes=Stakes.from_dict(setup["stakes"]), names=[p[2] for p in setup["players"]],
                stacks=[p[3] for p in setup["players"]], dealer=DeckDealer(deck))
    for a in acts:
        hand.act(Action(a))
    if hand.is_over or hand.actor is None or setup["players"][hand.actor][1] != "ann":
        return None
    return f"{rows[0]['hand_no']}.{len(acts)}", [a.value for a in hand.legal_actions()]


def bot_name(channel: str, n: int) -> str:
    """A name of its own for each house bot (they all buy in from the house bots' bankroll)."""
    return f"{channel.upper()}x{n}"


def chip_surplus(db: Db) -> int:
    return int(db.read("SELECT (SELECT COALESCE(SUM(balance),0) - 1000 * COUNT(*) FROM wallets) + "
                        "(SELECT COALESCE(SUM(stack),0) FROM seats) + (SELECT COALESCE(SUM(amount),0) "
                        "FROM ledger_entries WHERE account LIKE 'house:%')")[0][0])


@pytest.fixture(params=["postgresql", "sqlite"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Db]:
    where = request.getfixturevalue("pg_database") if request.param == "postgresql" else str(tmp_path / "c.db")
    db = Db(where)
    yield db
    db.close()


@pytest.mark.slow
def test_kill_9_of_one_of_two_processes_20_times(tmp_path: Path, db: Db) -> None:
    rng = random.Random(int(os.environ.get("STUD_CLUSTER_SEED", "14")))
    started = {"w1": 1, "w2": 1}
    workers = {"w1": Worker(db, "w1", tmp_path, 1), "w2": Worker(db, "w2", tmp_path, 1)}
    ident = 0
    sent: dict[int, tuple[str, str, str]] = {}  # id -> (channel, token, action) of ann's presses
    acked: list[tuple[str, str, str]] = []

    def send(worker: Worker, channel: str, user: str, text: str) -> int:
        nonlocal ident
        ident += 1
        worker.send(ident, channel, user, text)
        return ident

    def answer(worker: Worker, channel: str, user: str, text: str) -> bool:
        mine = send(worker, channel, user, text)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for got, ok, _ in collect():
                if got == mine:
                    return ok
            time.sleep(0.01)
        raise AssertionError(f"no answer to {text!r} at {channel}")

    def wait_ok(worker: Worker, channel: str, user: str, text: str) -> None:
        assert answer(worker, channel, user, text), (channel, user, text)

    def collect() -> list[tuple[int, bool, str]]:
        out = []
        for w in workers.values():
            for got, ok, code in w.answers():
                if ok and got in sent:
                    acked.append(sent[got])
                out.append((got, ok, code))
        return out

    # Tables opened at either process: the opener holds each.
    for i, channel in enumerate(BOT_TABLES + HUMAN_TABLES):
        w = workers["w1" if i % 2 == 0 else "w2"]
        wait_ok(w, channel, "host", "new")
        if channel in HUMAN_TABLES:
            wait_ok(w, channel, "ann", "join 300")
        for n in range(2 if channel in HUMAN_TABLES else 3):
            wait_ok(w, channel, "host", f"addbot {bot_name(channel, n)}")
        wait_ok(w, channel, "host", "start")

    def press_for_ann(live: list[Worker]) -> None:
        for channel in HUMAN_TABLES:
            turn = ann_to_act(db, channel)
            if turn is None:
                continue
            token, legal = turn
            if any(s[:2] == (channel, token) for s in sent.values()):
                continue  # pressed already (maybe lost with a kill: the turn timer acts then)
            action = rng.choice([a for a in legal if a != "fold"] or legal)
            sent[send(rng.choice(live), channel, "ann", f"{action} @{token}")] = (channel, token, action)

    def play(seconds: float, live: list[Worker]) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            press_for_ann(live)
            collect()
            time.sleep(0.05)

    resumed: list[float] = []
    by_survivor = by_restart = 0
    for kill in range(KILLS):
        play(rng.uniform(0.3, 2.5), list(workers.values()))
        victim = rng.choice(sorted(workers))
        survivor = "w2" if victim == "w1" else "w1"
        held = [r["channel"] for r in db.read("SELECT t.channel FROM table_leases l JOIN tables t ON "
                                               "t.id = l.table_id WHERE l.owner = ? AND t.open = 1", (victim,))]
        killed_at = time.time()
        workers[victim].kill()
        away = rng.choice([rng.uniform(0, LEASE / 2), rng.uniform(LEASE * 1.5, LEASE * 3)])
        play(away, [workers[survivor]])
        started[victim] += 1
        workers[victim] = Worker(db, victim, tmp_path, started[victim])
        # Every table the victim held goes on: an action stored after the kill, at each.
        deadline = time.monotonic() + LEASE * 4 / 3 + TURN + 15
        waiting = set(held)
        while waiting and time.monotonic() < deadline:
            for channel in list(waiting):
                rows = db.read("SELECT MIN(a.at) AS at FROM actions a JOIN hands h ON h.id = a.hand_id JOIN "
                                "tables t ON t.id = h.table_id WHERE t.channel = ? AND t.open = 1 AND a.at > ?",
                            (channel, killed_at))
                if rows[0]["at"] is not None:
                    resumed.append(float(rows[0]["at"]) - killed_at)
                    waiting.discard(channel)
            play(0.1, list(workers.values()))
        assert not waiting, (kill, victim, waiting)
        owners = {r["owner"] for r in db.read("SELECT l.owner, t.channel FROM table_leases l JOIN tables t ON "
                                               "t.id = l.table_id") if r["channel"] in held}
        by_survivor += survivor in owners
        by_restart += victim in owners
        assert chip_surplus(db) == 0, kill

    # The end: the house bots are kicked and ann leaves (refused for those already busted); each
    # hand in progress plays out.
    live = list(workers.values())
    for channel in BOT_TABLES + HUMAN_TABLES:
        for n in range(3 if channel in BOT_TABLES else 2):
            answer(rng.choice(live), channel, "host", f"kick {bot_name(channel, n)}")
        if channel in HUMAN_TABLES:
            answer(rng.choice(live), channel, "ann", "leave")
    assert not db.read("SELECT 1 FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.open = 1 "
                        "AND s.leaving = 0 AND s.kicked = 0")
    end = time.monotonic() + 120
    while db.read("SELECT 1 FROM hands WHERE status = 'playing'") and time.monotonic() < end:
        play(0.2, live)
    collect()
    for w in live:
        w.close()
    cli = subprocess.run([sys.executable, "-m", "adapters.run", "audit", "--replay"], cwd=ROOT,
                         env={**os.environ, **db.env}, capture_output=True, text=True, timeout=120, check=False)
    assert cli.returncode == 0 and cli.stdout.startswith("audit passed: "), cli.stdout + cli.stderr
    statuses = [r["status"] for r in db.read("SELECT status FROM hands")]
    assert statuses and set(statuses) == {"done"}, statuses
    assert chip_surplus(db) == 0
    # Every press acknowledged is stored at its turn, once (the key refuses a second).
    for channel, token, action in acked:
        hand_no, seq = (int(x) for x in token.split("."))
        rows = db.read("SELECT a.action FROM actions a JOIN hands h ON h.id = a.hand_id JOIN tables t ON "
                        "t.id = h.table_id WHERE t.channel = ? AND h.hand_no = ? AND a.seq = ?",
                    (channel, hand_no, seq))
        assert [r["action"] for r in rows] == [action], (channel, token, action)
    actions = db.read("SELECT COUNT(*) AS n FROM actions")[0]["n"]
    starts = sum(1 for w in ("w1", "w2") for n in range(1, started[w] + 1)
                    if (tmp_path / f"{w}-{n}.log").exists())
    median = sorted(resumed)[len(resumed) // 2]
    print(f"\n{KILLS} kills ({'postgresql' if db.pg else 'sqlite'}), {len(statuses)} hands, {actions} actions, "
          f"{len(acked)} of ann's {len(sent)} presses acknowledged and stored once; tables carried on after a "
          f"kill by the survivor {by_survivor}x, by the restarted process {by_restart}x; kill -> next action at "
          f"each table it held: max {max(resumed):.2f}s, median {median:.2f}s (lease {LEASE:g}s, turn timer "
          f"{TURN}s, {starts} process starts); {cli.stdout.strip()}")
