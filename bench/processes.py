"""Several bot processes on one database, for ``python -m bench.bot --processes N``.

Each process (``python -m bench.processes``, the database in ``STUDBOT_DATABASE_URL``) is a
:class:`~bot.app.StudBot` of its own in cluster mode (bot/cluster/cluster.py: an instance name
of its own, its tables' leases taken, every write fenced by them) with its own tables
(channels and players of its own prefix): the tables are split between the processes, and
every process creates and plays only its own, so no command is forwarded (that cost is
``python -m bench.cluster``'s). The processes start their bots, seat their tables, then
all play flat out together, on a word of the parent on their standard input at each step.

Each reports (a JSON line on its standard output) the latency of every action, its wall
time, and its processor time (``time.process_time``, every thread of that process); the
parent puts them together: actions/s from the first start to the last end, CPU per action
as the processes' processor time over every action.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from dataclasses import dataclass, replace
from typing import Any

from bot.bootstrap import open_store
from bot.core.config import Settings
from bot.core.lifecycle import tune_gc
from bot.store import Store

from .tables import ErrorLog, Probe, Stats, many_tables

DATABASE = "STUDBOT_DATABASE_URL"
REPORT_LIMIT = 1 << 26
"""Bytes of a process's report line (every latency: ~20 bytes an action)."""
POOL_SIZE = 10


@dataclass
class Together:
    stats: Stats
    processes: int
    hands: int
    errors: list[str]


async def run_processes(dsn: str, *, processes: int, tables: int, actions: int, seed: int,
                        interval: float, server: Probe | None = None) -> Together:
    """``tables`` tables split between ``processes`` bot processes on the database ``dsn``, flat out."""
    store = await open_store(replace(Settings(), database_url=dsn, db_pool_size=1))  # migrated once, here
    await store.close()
    env = {**os.environ, DATABASE: dsn}
    children = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.processes", "--prefix", f"p{i}-", "--tables",
        str(tables // processes + (1 if i < tables % processes else 0)), "--actions", str(actions),
        "--seed", str(seed + i), "--interval", str(interval), env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=REPORT_LIMIT) for i in range(processes)]
    server_cpu = server_before = 0.0
    try:
        for step in ("started", "ready", "played"):  # every process at each step, then all go on
            for child in children:
                await _expect(child, step)
            if server is not None and step == "ready":
                server_before = server()
            if server is not None and step == "played":  # before the processes close their connections
                server_cpu = server() - server_before
            for child in children:
                assert child.stdin is not None
                child.stdin.write(b"go\n")
                await child.stdin.drain()
        reports = [await _expect(child, "done") for child in children]
        for child in children:
            await child.wait()
    finally:
        for child in children:
            if child.returncode is None:
                child.kill()
                await child.wait()
    stats = Stats(latencies=[x for r in reports for x in r["latencies"]],
                  refused=[x for r in reports for x in r["refused"]], cpu=sum(r["cpu"] for r in reports))
    stats.server_cpu = None if server is None else server_cpu
    stats.loop_cpu = sum(r["loop_cpu"] for r in reports)
    stats.started_at = min(r["started_at"] for r in reports)
    stats.elapsed = max(r["started_at"] + r["elapsed"] for r in reports) - stats.started_at
    return Together(stats=stats, processes=processes, hands=sum(r["hands"] for r in reports),
                    errors=[x for r in reports for x in r["errors"]])


async def _expect(child: asyncio.subprocess.Process, state: str) -> dict[str, Any]:
    assert child.stdout is not None
    line = await child.stdout.readline()
    if not line:
        raise RuntimeError(f"a bot process ended before it was {state} (exit {await child.wait()})")
    report: dict[str, Any] = json.loads(line)
    if report.get("state") != state:
        raise RuntimeError(f"a bot process said {report!r}, not {state!r}")
    return report


# ---------------------------------------------------------------------- one process


def _say(**report: object) -> None:
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


async def _worker(args: argparse.Namespace, errors: ErrorLog) -> None:
    settings = replace(Settings(), database_url=os.environ[DATABASE], db_pool_size=POOL_SIZE)

    async def open_(name: str) -> Store:
        return await open_store(settings)

    async def sync(state: str) -> None:
        _say(state=state)
        if (await asyncio.to_thread(sys.stdin.readline)).strip() != "go":
            raise RuntimeError("the parent did not say go")

    many = await many_tables(open_, "procs", tables=args.tables, actions=args.actions, paced_seconds=0.0, rate=1.0,
                             seed=args.seed, interval=args.interval, prefix=args.prefix, sync=sync,
                             instance=f"bench-{args.prefix.strip('-')}")
    s = many.flat_out
    _say(state="done", latencies=s.latencies, refused=s.refused, cpu=s.cpu, loop_cpu=s.loop_cpu,
         started_at=s.started_at, elapsed=s.elapsed, hands=many.hands, errors=errors.lines())


def main() -> None:
    parser = argparse.ArgumentParser(description="One bot process of bench.bot --processes (see the module)")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--tables", type=int, required=True)
    parser.add_argument("--actions", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    tune_gc()  # as a serving bot process does (adapters/run.py)
    errors = ErrorLog()
    logging.basicConfig(level=logging.ERROR, handlers=[errors])
    asyncio.run(_worker(args, errors))


if __name__ == "__main__":
    main()
