"""Crash test of a sit-and-go: the console's script mode killed with SIGKILL at random points of
a long tournament (while it registers, mid-hand, between levels, as players bust, as the last
hand ends), restarted on the same SQLite file each time until the tournament is over.

After every kill, on the database as the kill left it: the audit passes (it checks every
tournament: bot/tourney/audit.py), the chips in play are players x starting stack, the prize
pool holds the buy-ins, and wallets plus pool hold what the wallets started with. At the end
every prize was paid exactly once and ``studbot audit --replay`` passes.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from backends import Backend, execute, now
from test_crash import PROMPT, ROOT, Process

from bot.bootstrap import audit_file
from bot.schema import MIGRATIONS
from bot.store import open_sqlite

KILLS = int(os.environ.get("STUD_TOURNEY_KILLS", "12"))
SPREAD = 3
"""Hands between two random kills, so that they fall all through the tournament."""
HUMANS = ("ann", "bob")
PLAYERS, STACK, BUYIN = 6, 1000, 100
SETUP = [f"ann: tourney new seats={PLAYERS} pace=turbo stack={STACK} buyin={BUYIN} payout=50/30/20",
         "ann: register", "bob: register", "ann: addbot Robo", "ann: addbot Dora", "ann: addbot Max",
         "ann: addbot Eve"]


def figures(db: Path) -> dict[str, int | str]:
    return now(_figures(db))


async def _figures(db: Path) -> dict[str, int | str]:
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        async def one(sql: str, params: tuple[object, ...] = ()) -> tuple[Any, ...]:
            [row] = await store.fetch(sql, params)
            return tuple(row)

        found = await store.fetch("SELECT status, table_id FROM tournaments")
        status, table_id = tuple(found[0]) if found else ("none", 0)
        players, alive = await one("SELECT COUNT(*), SUM(CASE WHEN place IS NULL THEN 1 ELSE 0 END) "
                                   "FROM tourney_players")
        [in_play] = await one("SELECT COALESCE(SUM(stack), 0) FROM seats WHERE table_id = ?", (table_id,))
        [pool] = await one("SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account = 'tournament:1'")
        wallets, count = await one("SELECT SUM(balance), COUNT(*) FROM wallets")
        [house] = await one("SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account LIKE 'house:%'")
        prizes = await one("SELECT COUNT(*), COALESCE(SUM(e.amount), 0) FROM ledger_transfers t JOIN ledger_entries e "
                           "ON e.transfer_id = t.id WHERE t.kind = 'prize' AND e.amount > 0")
        [hands] = await one("SELECT COUNT(*) FROM hands WHERE table_id = ?", (table_id,))
    finally:
        await store.close()
    return {"status": status, "players": players, "in_play": in_play, "pool": pool, "wallets": wallets or 0,
            "house": house, "wallet_count": count, "prizes": prizes[0], "prize_total": prizes[1], "hands": hands,
            "alive": alive or 0}


def test_kill_9_during_a_sit_and_go_loses_nothing(tmp_path: Path, store_backend: Backend) -> None:
    db = tmp_path / "sng-crash.db"
    rng = random.Random(int(os.environ.get("STUD_CRASH_SEED", "13")))
    prompt: tuple[str, str, str] | None = None

    def absorb(lines: list[str]) -> None:
        nonlocal prompt
        for line in lines:
            if m := PROMPT.match(line):
                prompt = (m.group(1), m.group(2), m.group(3))

    proc = Process(db, store_backend)
    absorb(proc.read_until(lambda s: s == "[ready]"))
    kills = steps = last_kill = 0
    heads_up_killed = False
    seen: list[dict[str, int | str]] = []
    pending = list(SETUP)
    answered: set[str] = set()
    while True:
        steps += 1
        assert steps < 20000, "the tournament does not progress"
        now = figures(db)
        if not pending and now["status"] == "finished":
            break
        if pending:
            line = pending.pop(0)
        elif rng.random() < 0.03:  # absent and back: the timer acts for them meanwhile
            line = f"{rng.choice(HUMANS)}: {rng.choice(['sitout', 'back', 'tourney'])}"
        elif prompt is not None and prompt[0] in HUMANS and prompt[2] not in answered and rng.random() < 0.9:
            player, legal, token = prompt
            answered.add(token)
            options = [o.split(" ")[0] for o in legal.split(" · ")]
            weights = [0.3 if o == "fold" else 0.8 if o in ("raise", "complete", "bet") else 1.0 for o in options]
            line = f"{player}: {rng.choices(options, weights)[0]} @{token}"
        else:
            line = "/sleep 5"
        proc.send(line)
        roll = rng.random()
        early = line in SETUP and kills < 3 and roll < 0.3  # kills while it registers
        due = kills < KILLS and int(now["hands"]) >= last_kill + SPREAD
        heads_up = now["status"] == "running" and now["alive"] == 2 and not heads_up_killed
        if heads_up:  # the last hands: killed as the tournament is about to end (or has just ended)
            heads_up_killed = True
        if early or heads_up or (due and roll < 0.06):
            absorb(proc.kill())
        else:
            absorb(proc.read_until(lambda s, line=line: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}")))
            if due and roll > 0.96:
                absorb(proc.kill())
            else:
                continue
        kills += 1
        last_kill = int(figures(db)["hands"])
        report = asyncio.run(audit_file(str(db)))
        assert report.ok, (kills, line, report.summary())
        f = figures(db)
        seen.append(f)
        players = int(f["players"])
        if f["status"] == "running":
            assert f["in_play"] == players * STACK, f
        if f["status"] in ("registering", "running"):
            assert f["pool"] == players * BUYIN and f["prizes"] == 0, f
        assert int(f["wallets"]) + int(f["pool"]) + int(f["house"]) == 1000 * int(f["wallet_count"]), f
        proc = Process(db, store_backend)
        absorb(proc.read_until(lambda s: s == "[ready]"))
        assert "audit passed" in proc.started_audited(), (kills, line)
        prompt = None
        if line in SETUP:
            pending = [line, *pending]  # done already, it is refused: "Already registered", ...
    proc.close()
    final = figures(db)
    where, url = store_backend.db_args(db)
    cli = subprocess.run([sys.executable, "-m", "adapters.run", "audit", "--replay", *where], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **url})
    assert cli.returncode == 0 and cli.stdout.startswith("audit passed: "), cli.stdout + cli.stderr
    running = [f for f in seen if f["status"] == "running"]
    print(f"\n{kills} kills ({sum(f['status'] == 'registering' for f in seen)} while registering, "
          f"{len(running)} while running, at hands {sorted({int(f['hands']) for f in running})}); "
          f"{final['hands']} hands; at every kill while running: chips in play "
          f"{sorted({f['in_play'] for f in running})} = {PLAYERS} x {STACK}, prize pool "
          f"{sorted({f['pool'] for f in running})} = {PLAYERS} x {BUYIN}; at the end: {final['prizes']} prizes paid, "
          f"{final['prize_total']} chips, pool {final['pool']}, wallets {final['wallets']} and house bots' "
          f"bankroll {final['house']} = {final['wallet_count']} x 1000; {cli.stdout.strip()}")
    assert kills >= KILLS and final["players"] == PLAYERS
    assert final["prizes"] == 3 and final["prize_total"] == PLAYERS * BUYIN and final["pool"] == 0
    assert int(final["wallets"]) + int(final["house"]) == 1000 * int(final["wallet_count"])


def test_item2_a_sit_and_go_frozen_by_two_alexes_is_cancelled_after_kill_9(tmp_path: Path,
                                                                           store_backend: Backend) -> None:
    """Issue 19, item 2: a running sit-and-go killed mid-hand; while it is down its entrants get the
    one name the old code let two players share ('Alex', as two Telegram users made it), so its
    next deal fails after the restart. The table says so and waits; its creator cancels it: every
    buy-in back, the tournament chips back to their account, the audit passes (and after one more
    kill -9 and restart, 'tourney' says it was cancelled)."""
    db = tmp_path / "frozen.db"

    def run(proc: Process, line: str) -> list[str]:
        proc.send(line)
        return proc.read_until(lambda s: s in (f"[ok] {line.split(':')[0]}", f"[ok] {line}"))

    proc = Process(db, store_backend)
    proc.read_until(lambda s: s == "[ready]")
    for line in ("ann: tourney new seats=3 stack=1000 buyin=100 pace=turbo", "ann: register", "bob: register"):
        run(proc, line)
    assert any(line.startswith("[table] Deck #1 ") for line in run(proc, "ann: addbot Robo"))  # full: committed
    assert any(line.startswith("[table] Hand #1:") for line in run(proc, "/sleep 5"))  # dealt after the pause
    proc.kill()  # mid-hand: it waits for ann or bob
    now(execute(db, "UPDATE seats SET name = 'Alex'"))
    now(execute(db, "UPDATE tourney_players SET name = 'Alex'"))

    proc = Process(db, store_backend)
    proc.read_until(lambda s: s == "[ready]")
    assert "audit passed" in proc.started_audited()
    said = run(proc, "ann: sitout") + run(proc, "bob: sitout")  # hand 1 plays itself out
    for _ in range(30):
        if any("could not be dealt" in line for line in said):
            break
        said += run(proc, "/sleep 5")
    assert any(line.startswith("[table] Hand #2 could not be dealt") for line in said), said[-10:]
    assert figures(db)["status"] == "running"
    assert any("Only the table's creator" in line for line in run(proc, "bob: tourney cancel"))
    out = run(proc, "ann: tourney cancel")
    assert "[table] Sit-and-go #1 is cancelled; every buy-in goes back to its wallet." in out, out
    proc.kill()
    f = figures(db)
    assert f["status"] == "cancelled" and f["pool"] == 0 and f["in_play"] == 0 and f["prizes"] == 0, f
    assert f["wallets"] == 1000 * int(f["wallet_count"]) and f["wallet_count"] == 2 and f["house"] == 0, f
    report = asyncio.run(audit_file(str(db), replay=True))
    assert report.ok and report.tournaments == 1, report.summary()
    proc = Process(db, store_backend)
    proc.read_until(lambda s: s == "[ready]")
    assert "audit passed" in proc.started_audited()
    assert any("Sit-and-go #1 was cancelled" in line for line in run(proc, "ann: tourney"))
    proc.close()
