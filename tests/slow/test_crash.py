"""Crash test: the console's script mode killed with SIGKILL at random points, restarted on the same database.

Two people (answering exactly the turn they are shown, as buttons do, and now and then
leaving, sitting down again, sitting out and coming back, in a hand or between hands) and
two house bots play. The process is killed at least 20 times, sometimes while a line
is being handled, and restarted on the same SQLite file; the script goes on.
After every kill the audit passes on the database as it was left, and the restarted bot
logs that its own audit passed. Afterwards: every hand finished, ``studbot audit --replay`` passes,
the chips in the database never changed, every action printed (acknowledged) is in the
database once, in order, every stored action was printed (those a kill kept from the table
are said after the restart), and every
stored hand file replays to the stored stacks. Provably fair decks survive the kills: a hand number is
never published with two commitments (a seed committed but not dealt when the process died is the one
its hand is dealt from after the restart, shown again before the deal), every hand's commitment was
printed before its deal, and every stored hand file, with its revealed seed, passes
``python -m engine.verify`` against the commitment printed before its deal.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from backends import Backend, rows_now

from bot.bootstrap import audit_file
from engine import HandFile, replay_hand, result_of

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("STUD_CRASH_KILLS", "24"))
HUMANS = ("ann", "bob")
PROMPT = re.compile(r"^\[table\] (\S+) to act \(\d+s\): (.*) \[turn (\S+)\]$")
ACTION = re.compile(r"^\[table\] (\S+) (brings in|completes to|bets|raises to|calls|checks|folds)\b")
AGAIN = "[table] After a restart, what had not reached the table yet:"
COMMITTED = re.compile(r"^\[table\] Deck #(\d+) ([0-9a-f]{4}…[0-9a-f]{4}) · verify")
VERB = {"brings in": "bring-in", "completes to": "complete", "bets": "bet", "raises to": "raise", "calls": "call",
        "checks": "check", "folds": "fold"}


class Process:
    started = 0

    def __init__(self, db: Path, backend: Backend) -> None:
        where, url = backend.db_args(db)  # --db FILE, or STUDBOT_DATABASE_URL
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "STUDBOT_STARTING_BALANCE": "1000", "LOG_LEVEL": "INFO",
               **backend.env(db), **url}
        Process.started += 1
        self.log = db.with_name(f"{db.stem}-{Process.started}.log")
        with self.log.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "adapters.console", "--script", "--seed", "5", *where],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, env=env,
            )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def started_audited(self) -> str:
        """The audit line the bot logged as it started (after '[ready]')."""
        audits = [ln for ln in self.log.read_text().splitlines() if " audit " in ln]
        assert len(audits) == 1, self.log.read_text()[-2000:]
        return audits[0]

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate: object, timeout: float = 30.0) -> list[str]:
        assert callable(predicate)
        out: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"the process ended; last lines {out[-5:]}")
            out.append(line)
            if predicate(line):
                return out

    def kill(self) -> list[str]:
        """SIGKILL, then whatever it had printed before dying."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        out = []
        while True:
            try:
                line = self.lines.get(timeout=5)
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def chip_surplus(db: Path) -> int:
    """Chips in wallets, seats and the house bots' bankroll minus 1000 per wallet (every wallet starts
    with 1000; no refills here; house bots buy in from the bankroll, which starts at 0)."""
    [(surplus,)] = rows_now(db, "SELECT (SELECT COALESCE(SUM(balance),0) - 1000 * COUNT(*) FROM wallets) + "
                                "(SELECT COALESCE(SUM(stack),0) FROM seats) + (SELECT COALESCE(SUM(amount),0) "
                                "FROM ledger_entries WHERE account LIKE 'house:%')")
    return int(surplus)


def test_kill_9_at_random_points_loses_nothing(tmp_path: Path, store_backend: Backend) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(int(os.environ.get("STUD_CRASH_SEED", "2026")))
    printed: list[tuple[str, str, bool]] = []  # (player, action, said again after a restart), in order
    commitments: dict[int, set[str]] = {}  # hand number -> every commitment printed for it
    prompt: tuple[str, str, str] | None = None
    again = False  # after a restart's notice, until the board: lines a crash had kept from the table

    def absorb(lines: list[str]) -> None:
        nonlocal prompt, again
        for line in lines:
            if m := COMMITTED.match(line):
                commitments.setdefault(int(m.group(1)), set()).add(m.group(2))
            if line == AGAIN:
                again = True
            elif line == "[ready]":
                again = False
            elif m := PROMPT.match(line):  # the board after what was said again: the game goes on
                prompt = (m.group(1), m.group(2), m.group(3))
                again = False
            elif m := ACTION.match(line):
                printed.append((m.group(1), VERB[m.group(2)], again))
                prompt = None

    proc = Process(db, store_backend)
    absorb(proc.read_until(lambda s: s == "[ready]"))
    setup = ["ann: new", "ann: join 300", "bob: join 300", "ann: seed crash & burn", "ann: addbot Robo",
             "ann: addbot Dora", "ann: start"]
    kills = audits = 0
    totals: set[int] = set()
    steps = 0
    pending = list(setup)
    while kills < KILLS or steps < 400:
        steps += 1
        assert steps < 5000, "the script does not progress"
        if pending:
            line = pending.pop(0)
        elif rng.random() < 0.08:  # coming and going at any moment, a hand in progress or not
            line = f"{rng.choice(HUMANS)}: {rng.choice(['leave', 'join 300', 'join 300', 'sitout', 'back'])}"
        elif rng.random() < 0.03:  # issue 22: a rebuy (at once, or waiting for the hand's end) and a settle-up
            line = rng.choice([f"{rng.choice(HUMANS)}: rebuy 50", "ann: settle", "bob: ledger"])
        elif prompt is not None and prompt[0] in HUMANS:
            player, legal, token = prompt
            options = [o.split(" ")[0] for o in legal.split(" · ")]
            weights = [0.2 if o == "fold" else 0.6 if o in ("raise", "complete", "bet") else 1.0 for o in options]
            line = f"{player}: {rng.choices(options, weights)[0]} @{token}"
        else:
            line = "/sleep 5"
        proc.send(line)
        roll = rng.random()
        if kills < KILLS and roll < 0.06:
            absorb(proc.kill())  # killed while (or before) handling the line
        else:
            absorb(proc.read_until(lambda s, line=line: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}")))
            if kills < KILLS and roll > 0.97:
                absorb(proc.kill())  # killed between two lines
            else:
                continue
        kills += 1
        totals.add(chip_surplus(db))
        report = asyncio.run(audit_file(str(db)))  # the database as the kill left it
        assert report.ok, (kills, line, report.summary())
        proc = Process(db, store_backend)
        absorb(proc.read_until(lambda s: s == "[ready]"))
        assert "audit passed" in proc.started_audited(), (kills, line)  # and as the restarted bot found it
        audits += 2
        if line in setup:
            # A setup line killed before its answer may or may not have been done: send it again
            # (done already, it is refused: "already seated", "Robo is already seated", ...).
            pending = [line, *pending]
    # Finish the hand in progress without starting another: everybody goes once it ends (the
    # house bots alone would otherwise deal on), then play it out.
    for line in ("ann: kick Robo", "ann: kick Dora", "ann: leave", "bob: leave"):
        proc.send(line)
        absorb(proc.read_until(lambda s, line=line: s == f"[ok] {line.split(':')[0]}"))
    for _ in range(200):
        [(playing,)] = rows_now(db, "SELECT COUNT(*) FROM hands WHERE status = 'playing'")
        if not playing:
            break
        if prompt is not None and prompt[0] in HUMANS:
            player, legal, token = prompt
            choice = "check" if "check" in legal else "call"
            line = f"{player}: {choice} @{token}"
        else:
            line = "/sleep 1"
        proc.send(line)
        absorb(proc.read_until(lambda s, line=line: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}")))
    proc.close()
    where, url = store_backend.db_args(db)
    cli = subprocess.run([sys.executable, "-m", "adapters.run", "audit", "--replay", *where], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=False, env={**os.environ, **url})
    assert cli.returncode == 0 and cli.stdout.startswith("audit passed: "), cli.stdout + cli.stderr
    audits += 1

    statuses = [status for (status,) in rows_now(db, "SELECT status FROM hands ORDER BY id")]
    rows = rows_now(db, "SELECT h.setup, a.action, a.seat_no FROM actions a JOIN hands h ON h.id = a.hand_id "
                        "ORDER BY h.id, a.seq")
    files = [text for (text,) in rows_now(db, "SELECT hand_file FROM hands WHERE status = 'done' ORDER BY id")]
    assert kills >= KILLS
    print(f"\n{kills} kills, {len(statuses)} hands, {len(printed)} actions acknowledged, {len(rows)} stored, "
          f"{audits} audits passed (the killed database and the restarted bot's at each kill, then "
          f"'studbot audit': {cli.stdout.strip()})")
    assert len(statuses) >= 10 and set(statuses) == {"done"}, statuses
    [(rebuys,)] = rows_now(db, "SELECT COUNT(*) FROM ledger_transfers WHERE kind = 'rebuy'")
    [(settled,)] = rows_now(db, "SELECT COUNT(*) FROM table_sessions")
    assert rebuys >= 1 and settled >= 1, (rebuys, settled)  # issue 22's moves were among the killed lines
    # The chips never changed: every wallet's 1000 are in the wallet or at the table.
    totals.add(chip_surplus(db))
    assert totals == {0}
    # Every acknowledged action is stored once, in order; stored actions not printed are those
    # whose process died between the commit and the print.
    stored = []
    for setup_json, action, seat_no in rows:
        players = {p[0]: p[2] for p in json.loads(setup_json)["players"]}
        stored.append((players[seat_no], action))
    # Every stored action reached the table, in order: printed once, or said again after the restart
    # that followed its crash (a line said just before a kill may be said twice, never not at all).
    reachable = {0}  # how many stored actions the printed lines so far account for
    for player, action, said_again in printed:
        step = {i + 1 for i in reachable if i < len(stored) and stored[i] == (player, action)}
        reachable = step | (reachable if said_again else set())
        assert reachable, f"{player} {action} was printed but not stored there"
    assert len(stored) in reachable, "a stored action never reached the table"
    print(f"{sum(a for _, _, a in printed)} action lines said again after a restart")
    # Every stored hand file replays to a finished hand, chips conserved.
    for text in files:
        result = result_of(replay_hand(HandFile.from_json(text)))
        start = sum(p["stack"] for p in json.loads(text)["players"])
        assert sum(result["stacks"].values()) == start
    # One commitment per hand, whatever the kills; each stored hand verifies against the one printed.
    assert all(len(shown) == 1 for shown in commitments.values()), commitments
    checked = 0
    for number, text in enumerate(files, start=1):
        fair = json.loads(text)["fair"]
        assert fair["hand_no"] == number and fair["server_seed"] is not None
        if number in commitments:  # printed by the process that dealt it, before the deal (issue 19, item 4)
            assert {f"{fair['commitment'][:4]}…{fair['commitment'][-4:]}"} == commitments[number], number
            checked += 1
        path = tmp_path / f"hand{number}.json"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 0 and done.stdout.startswith("fair: "), (number, done.stdout, done.stderr)
    assert checked == len(files), "a hand was dealt whose commitment was never shown"
    assert any("crash & burn" in seed for text in files for _, seed in json.loads(text)["fair"]["player_seeds"])


def test_item3_a_pending_kick_and_stop_survive_kill_9(tmp_path: Path, store_backend: Backend) -> None:
    """Issue 19 item 3, killed: a kick and a stop during a hand are stored before they are
    acknowledged, and a SIGKILL does not lose them: after the restart the kicked player still has
    his turn and his choices, the hand ends normally, then he is cashed out and the table closes."""
    db = tmp_path / "pending.db"
    prompts: list[tuple[str, str, str]] = []

    def absorb(lines: list[str]) -> str:
        prompts.extend((m.group(1), m.group(2), m.group(3)) for line in lines if (m := PROMPT.match(line)))
        return "\n".join(lines)

    def run(line: str) -> str:
        proc.send(line)
        return absorb(proc.read_until(lambda s: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}")))

    def passive(legal: str) -> str:
        options = [o.split(" ")[0] for o in legal.split(" · ")]
        return next(o for o in ("bring-in", "check", "call") if o in options)

    proc = Process(db, store_backend)
    absorb(proc.read_until(lambda s: s == "[ready]"))
    for line in ("ann: new", "ann: join 300", "bob: join 300", "cat: join 300", "ann: start", "/sleep 5"):
        run(line)  # the first deck's commitment at 'start', its deal after the pause
    for _ in range(60):  # ann bets as soon as she may; the others bring in, check or call
        player, legal, token = prompts[-1]
        bets = [o.split(" ")[0] for o in legal.split(" · ") if o.split(" ")[0] in ("complete", "bet", "raise")]
        if player == "ann" and bets:
            run(f"ann: {bets[0]} @{token}")
            break
        run(f"{player}: {passive(legal)} @{token}")
    facing = prompts[-1][:2]
    assert facing[0] != "ann" and "fold" in facing[1]
    kicked = facing[0]
    assert f"[table] {kicked} is removed from the table after this hand." in run(f"ann: kick {kicked}")
    assert "[table] The table closes after this hand" in run("ann: stop")
    assert rows_now(db, "SELECT user_id, kicked FROM seats WHERE kicked = 1") == [(kicked, 1)]
    assert rows_now(db, "SELECT closing, open FROM tables") == [(1, 1)]
    proc.kill()
    assert asyncio.run(audit_file(str(db))).ok
    proc = Process(db, store_backend)
    absorb(proc.read_until(lambda s: s == "[ready]"))
    assert "audit passed" in proc.started_audited()
    assert prompts[-1][:2] == facing  # his turn and his choices, after the restart too
    said = run(f"{kicked}: call @{prompts[-1][2]}")
    assert f"{kicked} calls" in said
    for _ in range(60):
        [(playing,)] = rows_now(db, "SELECT COUNT(*) FROM hands WHERE status = 'playing'")
        if not playing:
            break
        player, legal, token = prompts[-1]
        said += run(f"{player}: {passive(legal)} @{token}")
    assert "[table] The table is closed and every stack is back in its wallet." in said
    proc.close()
    assert rows_now(db, "SELECT status FROM hands") == [("done",)]
    assert rows_now(db, "SELECT open, closing FROM tables") == [(0, 1)]
    assert rows_now(db, "SELECT COUNT(*) FROM seats") == [(0,)]
    [(kicks,)] = rows_now(db, "SELECT COUNT(*) FROM ledger_transfers WHERE kind = 'kick'")
    assert kicks == 1 or f"{kicked} leaves the table, out of chips" in said
    assert chip_surplus(db) == 0 and asyncio.run(audit_file(str(db))).ok


def test_a_pause_is_frozen_across_kill_9(tmp_path: Path, store_backend: Backend) -> None:
    """Issue 22: a pause is stored before it is acknowledged; after a SIGKILL and a restart the table is
    still paused (no timeout, no deal however long it waits), its board says so with the turn's time left
    as it stood, and 'resume' gives the turn exactly that time, then the player's time bank."""
    db = tmp_path / "paused.db"
    prompt = re.compile(r"^\[table\] (\S+) to act \((\d+s|paused, \d+s left)\): ")

    def run(line: str) -> str:
        proc.send(line)
        return "\n".join(proc.read_until(lambda s: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}")))

    proc = Process(db, store_backend)
    proc.read_until(lambda s: s == "[ready]")
    for line in ("ann: new", "ann: join 300", "bob: join 300", "ann: start"):
        run(line)
    dealt = run("/sleep 5")
    [(player, clock)] = [m.groups() for line in dealt.splitlines() if (m := prompt.match(line))]
    assert clock == "60s"
    run("/sleep 20")
    assert "[table] ⏸ ann paused the table" in run("ann: pause")
    assert rows_now(db, "SELECT paused_by FROM table_clocks") == [("ann",)]
    proc.kill()
    assert asyncio.run(audit_file(str(db))).ok
    proc = Process(db, store_backend)
    restored = proc.read_until(lambda s: s == "[ready]")
    assert "audit passed" in proc.started_audited()
    assert f"[table] {player} to act (paused, 40s left)" in "\n".join(restored), restored
    waited = run("/sleep 600")
    assert "ran out of time" not in waited and "time bank" not in waited and "Hand #2" not in waited
    assert "The table is paused already (ann paused it)" in run("ann: pause")
    resumed = run("ann: resume")
    assert f"[table] {player} to act (40s): " in resumed
    assert "time bank" not in run("/sleep 39")
    assert f"[table] ⏳ {player}'s time is up: their time bank runs (30 s left)." in run("/sleep 1")
    proc.close()
    [(actions,)] = rows_now(db, "SELECT COUNT(*) FROM actions")
    assert actions == 0 and chip_surplus(db) == 0 and asyncio.run(audit_file(str(db))).ok
