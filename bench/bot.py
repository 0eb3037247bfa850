"""The bot end to end: actions per second with the processor time each action costs, p50/p99
latency per action, memory per idle table.

1. one table, two players, hands dealt one after the other, every ``handle`` timed;
2. 1,000 tables in one bot, one process and one store, all playing at once (1,000 asyncio
   tasks): first flat out (each table acts again as soon as it is answered: the most the
   process does), then paced (each table on a beat, together ``--rate`` actions a second
   offered: the latency at that load); the latency includes the wait for the store;
3. memory per idle table (two seated players, no hand): tracemalloc, and RSS;
4. references measured in the same run: the engine alone (``Hand.act`` on the very hands
   the bot played) and one bare ``INSERT; COMMIT`` of the store's backend.

The bot talks to an outbox, as in production (see :mod:`bench.tables`); ``--interval`` is
its period. Beside every rate: the processor time per action (``time.process_time`` over
the run, every thread of the process). Speed is measured, never asserted: the machines
are noisy, so the figures are read beside the references. The last line is
``1000 tables, sqlite: <N> actions/s`` (flat out). Run: ``python -m bench.bot`` (``--help``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.core.lifecycle import tune_gc

from . import references
from .backends import Backend, postgres_backend, sqlite_backend
from .processes import Together, run_processes
from .tables import ErrorLog, ManyTables, Memory, OneTable, Stats, idle_memory, many_tables, one_table


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs"


def line(label: str, s: Stats, unit: str = "actions", *, micro: bool = False) -> str:
    """One figure: how many, the rate, the processor time each, and the latencies (``micro``: in µs)."""
    f = us if micro else ms
    boards = f"  boards {s.boards / s.count:.2f}/action" if s.boards and s.count else ""
    return (f"{label:<40} {s.count:>7,} {unit:<7} {s.rate:>8,.0f}/s  CPU {f(s.cpu_each):>10}/{unit[:-1]}  "
            f"p50 {f(s.q(0.5)):>10}  p99 {f(s.q(0.99)):>10}  mean {f(s.mean):>10}{boards}")


class _BelowError(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


def where(s: Stats) -> str:
    """Where the processor time of a run went, and how the store grouped its writes."""
    if not s.count:
        return ""
    grouped = f"; {s.commits / s.count:.3f} commits/action ({s.committed / s.commits:.0f} writes each)" \
        if s.commits else ""
    server = f"; and the PostgreSQL server's processes {ms(s.server_cpu / s.count)}/action" \
        if s.server_cpu is not None else ""
    return (f"    CPU {ms(s.cpu_each)}/action: {ms(s.loop_cpu / s.count)} the event loop's thread, "
            f"{ms(max(0.0, s.cpu - s.loop_cpu) / s.count)} the others (the database driver's){grouped}{server}")


def report_one(args: argparse.Namespace, backend: str, one: OneTable, console: Stats | None) -> None:
    s, played = one.stats, one.played
    print(f"\n1. one table, {args.players} players, {len(played)} hands "
          f"({sum(len(a) for _, a in played) / max(1, len(played)):.1f} actions a hand), {backend}:")
    print(line("  end to end (handle)", s))
    print(where(s))
    d = one.deals
    print(f"  {'deal of the next hand (advance)':<38} {d.count:>7,} deals   {'':>10}  {'':>18}  "
          f"p50 {ms(d.q(0.5)):>10}  p99 {ms(d.q(0.99)):>10}  mean {ms(d.mean):>10}")
    if console is not None:
        print(line("  console adapter (every board drawn)", console))


def report_many(args: argparse.Namespace, backend: str, many: ManyTables, one: Stats) -> None:
    m = many.flat_out
    print(f"\n2. {args.tables:,} tables at once in one bot/process/store ({backend}), 2 players each, "
          f"{many.hands:,} hands (setup {many.setup_seconds:.1f} s):")
    print(line(f"  flat out, {args.table_actions} actions a table", m))
    print(where(m))
    print(f"  throughput {m.rate:,.0f} actions/s = {m.rate / one.rate:.2f}x one table; CPU "
          f"{ms(m.cpu_each)}/action = {m.cpu_each / one.cpu_each:.2f}x one table's; one core at that cost: "
          f"{1 / m.cpu_each if m.cpu_each else 0:,.0f} actions/s")
    print(f"  every table waits for its answer before acting again: {args.tables:,} tables / {m.rate:,.0f} "
          f"actions/s = {ms(args.tables / m.rate) if m.rate else '-'} a round (Little's law), mean latency "
          f"{ms(m.mean)}")
    p = many.paced
    if p is not None:
        print(line(f"  paced, {many.rate:,.0f}/s offered", p))
        print(where(p))
        met = p.rate >= 0.95 * many.rate and p.q(0.99) < 0.05
        print(f"  at {many.rate:,.0f} actions/s offered ({args.tables:,} tables, each once every "
              f"{ms(args.tables / many.rate)}): {p.rate:,.0f} done, p99 {ms(p.q(0.99))} "
              f"({'within' if met else 'NOT within'} the target: >= 95% of the offered rate, p99 < 50 ms)")


def report_memory(args: argparse.Namespace, backend: str, mem: Memory) -> None:
    print(f"\n3. memory per idle table (two seated players, no hand), batches of {args.tables:,} tables, "
          f"{backend}, measured first on a fresh heap:")
    print(f"  tracemalloc (Python objects) {mem.traced_per_table:,.0f} B/table; "
          f"RSS (all, the database driver's caches included) {mem.rss_per_table:,.0f} B/table")
    print("  largest Python allocations per table: "
          + ", ".join(f"{where} {size:,.0f} B" for where, size in mem.top))


@dataclass
class Figures:
    """One backend's figures, for the summary."""

    backend: str
    one: Stats
    many: ManyTables
    together: Together | None = None


async def measure(args: argparse.Namespace, backend: Backend, engine: list[Stats], *, first: bool) -> Figures:
    """Every scenario on one backend, reported as it goes."""
    opener = backend.opener()
    one = await one_table(opener, "one", actions=args.actions, players=args.players, seed=args.seed,
                          interval=args.interval, server=backend.server_cpu)
    console = None
    if args.console_actions and first:  # the console draws every board whatever the store: once is enough
        console = (await one_table(opener, "console", actions=args.console_actions, players=args.players,
                                   seed=args.seed + 1, interval=args.interval, console=True)).stats
    report_one(args, backend.name, one, console)
    if not engine:
        engine.append(references.engine_alone(one.played, repeat=args.engine_repeat))
    refs = await backend.references(one.stats.count)
    print(f"\nreferences ({backend.name}, same run):")
    print(line("  engine alone: Hand.act", engine[0], micro=True))
    for label, ref in refs:
        print(line(f"  {label}", ref, "commits", micro=True))
    s, (label, bare) = one.stats, refs[0]  # how the store writes: sqlite3 in the loop, asyncpg
    print(f"  one table: p50 {ms(s.q(0.5))} = {s.q(0.5) / engine[0].q(0.5):,.0f}x engine action, "
          f"{s.q(0.5) / bare.q(0.5):.1f}x {label.split(':')[0]}'s commit; "
          f"CPU {ms(s.cpu_each)}/action = {s.cpu_each / bare.cpu_each:.1f}x that commit's")

    many = await many_tables(opener, "many", tables=args.tables, actions=args.table_actions,
                             paced_seconds=args.paced_seconds, rate=args.rate, seed=args.seed,
                             interval=args.interval, server=backend.server_cpu)
    report_many(args, backend.name, many, one.stats)
    figures = Figures(backend=backend.name, one=one.stats, many=many)
    if backend.name == "postgres" and args.processes > 1:
        figures.together = await run_processes(await backend.new_database("processes"), processes=args.processes,
                                               tables=args.tables, actions=args.table_actions, seed=args.seed,
                                               interval=args.interval, server=backend.server_cpu)
        t = figures.together.stats
        print(f"\n2b. {args.tables:,} tables split between {args.processes} bot processes in cluster mode "
              f"(STUDBOT_INSTANCE: leases, fenced writes) on one PostgreSQL database, each process its own "
              f"tables, flat out ({figures.together.hands:,} hands):")
        print(line(f"  {args.processes} processes together", t))
        print(where(t))
        print(f"  = {t.rate / many.flat_out.rate:.2f}x one process without cluster mode; CPU: every process's "
              "processor time over every action")
        for error in figures.together.errors:
            print(f"  a process logged: {error}")
    for refused in (s.refused, many.flat_out.refused, many.paced.refused if many.paced else [],
                    console.refused if console else []):
        if refused:
            print(f"  {len(refused)} actions not ok, e.g. " + "; ".join(refused[:3]))
    return figures


async def run(args: argparse.Namespace, errors: ErrorLog) -> None:
    wall = time.perf_counter()
    names = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    with tempfile.TemporaryDirectory(prefix="bench-bot-") as tmp_name, contextlib.ExitStack() as stack:
        tmp = Path(tmp_name)
        print("StudBot end to end: Inbound -> handle -> commit -> engine -> lines and board -> outbox "
              f"(a table's board and lines sent at most once every {args.interval:g} s) -> a platform that keeps "
              "nothing; the store's group commit; ManualClock, bot_delay=0")
        backends = [sqlite_backend(tmp) if name == "sqlite" else postgres_backend(args.pg_dsn, stack)
                    for name in names]
        for backend in backends:
            print(f"{backend.name}: {backend.where}")
        print("CPU: time.process_time of the whole process (every thread) over the run, per action; the "
              "PostgreSQL server's processes apart (when the server is started here)")
        try:
            mem = await idle_memory(backends[0].opener(), "memory", tables=args.tables, seed=args.seed)  # fresh heap
            engine: list[Stats] = []
            done = [await measure(args, backend, engine, first=i == 0) for i, backend in enumerate(backends)]
        finally:
            for backend in backends:
                await backend.close()
        report_memory(args, backends[0].name, mem)

    print(f"\nsummary ({time.perf_counter() - wall:.0f} s, {errors.count} bot errors):")
    for f in done:
        m, p = f.many.flat_out, f.many.paced
        print(f"  {f.backend:<8} 1 table {f.one.rate:>6,.0f} actions/s, CPU {ms(f.one.cpu_each)}/action, "
              f"p50 {ms(f.one.q(0.5))} p99 {ms(f.one.q(0.99))}; {args.tables:,} tables {m.rate:,.0f} actions/s, "
              f"CPU {ms(m.cpu_each)}/action, p99 {ms(m.q(0.99))}"
              + (f"; paced {p.rate:,.0f}/s of {f.many.rate:,.0f} offered, p99 {ms(p.q(0.99))}" if p else "")
              + (f"; {f.together.processes} processes {f.together.stats.rate:,.0f} actions/s, "
                 f"CPU {ms(f.together.stats.cpu_each)}/action" if f.together else ""))
    last = next((f for f in done if f.backend == "sqlite"), done[0])
    print(f"{args.tables} tables, {last.backend}: {last.many.flat_out.rate:.0f} actions/s")


def main() -> None:
    parser = argparse.ArgumentParser(description="StudBot end to end: actions/s with CPU per action, p50/p99, "
                                                 "memory per table")
    parser.add_argument("--actions", type=int, default=3000, help="actions at the single table")
    parser.add_argument("--players", type=int, default=2, help="players at the single table (2 to 8)")
    parser.add_argument("--console-actions", type=int, default=1000,
                        help="actions at one more table through the console adapter, which shows every board "
                             "(0: skip)")
    parser.add_argument("--tables", type=int, default=1000, help="tables playing at once, and for the memory figure")
    parser.add_argument("--table-actions", type=int, default=15, help="actions at each of the --tables tables, "
                                                                      "flat out")
    parser.add_argument("--paced-seconds", type=float, default=4.0,
                        help="then the same tables for this long, each on a beat, --rate actions a second "
                             "together (0: skip)")
    parser.add_argument("--rate", type=float, default=5000.0, help="actions a second offered by the paced tables")
    parser.add_argument("--interval", type=float, default=1.0,
                        help="the outbox's period: a table's board and lines sent at most once in it")
    parser.add_argument("--engine-repeat", type=int, default=5, help="passes of the engine reference (pooled)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both",
                        help="the store(s) to measure on (postgres: --pg-dsn's server, else a throwaway one)")
    parser.add_argument("--pg-dsn", help="a PostgreSQL server to create the benchmark's databases on "
                                         "(default: start one with bench.pgserver)")
    parser.add_argument("--processes", type=int, default=2,
                        help="on PostgreSQL, also the --tables split between this many bot processes on one "
                             "database (each process its own tables; 1: skip)")
    args = parser.parse_args()
    tune_gc()  # as a serving bot process does (adapters/run.py)
    errors = ErrorLog()
    shown = logging.StreamHandler()
    shown.addFilter(_BelowError())
    shown.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[errors, shown])
    try:
        asyncio.run(run(args, errors))
    finally:
        if errors.count:  # also when a scenario failed: what the bot logged may say why
            print(f"\n{errors.count} errors logged by the bot (its bugs; the table went on):")
            print("\n".join(errors.lines()))


if __name__ == "__main__":
    main()
