"""Soak: thousands of house-bot hands in one process, the resident memory sampled as they go.

The console's script mode, as ``python -m adapters.console --script`` wires it (a
:class:`~bot.core.clock.ManualClock`, the console messenger and chat, a real SQLite file in
a temporary directory), plays one table of house bots hand after hand: time moves on
by the pause between hands, the bots act at once, and a bot that goes broke is
replaced by a new one (``addbot``), so the table never stops. Every chip is checked
after every hand (the wallets, the stacks and the house bots' bankroll add up to what the wallets
were given: nothing, when only house bots play).

Every ``--every`` hands it samples the resident set size (``VmRSS`` of
``/proc/self/status``) and prints it; at the end, the growth after the first
``--warmup`` hands, which is the figure to read (the target: under 5 MB over 10,000
hands). Memory is measured, not asserted: the script prints figures and exits 0
unless chips went wrong.

Run: ``python -m bench.soak`` (``--hands 300`` for a quick look).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from adapters.console.app import ScriptSession
from bot.chips import wallets as chip_wallets
from bot.core.config import Settings
from engine import evaluate

BOTS = 6
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=10**9)


def rss_kb() -> int:
    """The resident set size of this process in kB (Linux: /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def memo_bytes() -> int:
    """The engine's evaluation memo (rank multiset -> value): its dicts, keys and values."""
    total = 0
    for memo in (evaluate._HIGH, evaluate._LOW):
        total += sys.getsizeof(memo) + sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in memo.items())
    return total


@dataclass
class Sink:
    """Where the console's lines go: counted, then dropped (a terminal keeps them, not the process)."""

    lines: int = 0
    chars: int = 0

    def write(self, line: str) -> None:
        self.lines += 1
        self.chars += len(line) + 1


@dataclass
class Soak:
    hands: int
    every: int
    warmup: int
    samples: list[tuple[int, int, float, int]] = field(default_factory=list)
    """(hands played, RSS in kB, seconds since the start, bytes of the engine's evaluation memo)."""


class ChipsWentWrong(AssertionError):
    pass


async def soak(*, hands: int, every: int, warmup: int, db: str, out: Sink, seed: int = 1) -> Soak:
    result = Soak(hands=hands, every=every, warmup=warmup)
    session = await ScriptSession.open(db=db, seed=seed, settings=SETTINGS, write=out.write)
    bot, store = session.bot, session.store
    try:
        await session.feed("host: new")
        for _ in range(BOTS):
            await session.feed("host: addbot")
        await session.feed("host: start")
        rt = bot.tables["console:main"]
        started = time.perf_counter()
        gc.collect()
        result.samples.append((0, rss_kb(), 0.0, memo_bytes()))
        while rt.table.hand_no < hands:
            played = rt.table.hand_no
            await session.feed(f"/sleep {SETTINGS.next_hand_delay:g}")
            if rt.table.hand_no == played:
                raise RuntimeError(f"no hand was dealt after hand #{played}: {rt.table.seats}")
            await check_chips(session)
            for _ in range(BOTS - len(rt.table.seats)):
                await session.feed("host: addbot")
            if rt.table.hand_no % every == 0:
                gc.collect()
                result.samples.append((rt.table.hand_no, rss_kb(), time.perf_counter() - started, memo_bytes()))
    finally:
        await session.close()
    del bot, store
    return result


async def check_chips(session: ScriptSession) -> None:
    """Between hands: every wallet and stack, with the house bots' bankroll (``wallets.chip_total``), adds up
    to what the wallets were given (no refill happens)."""
    wallets = (await session.store.fetch("SELECT COUNT(*) FROM wallets"))[0][0]
    total = await chip_wallets.chip_total(session.store)
    if total != wallets * SETTINGS.starting_balance:
        raise ChipsWentWrong(f"after hand #{session.bot.tables['console:main'].table.hand_no}: "
                             f"{total} chips, {wallets * SETTINGS.starting_balance} given")


def report(result: Soak, out: Sink) -> list[str]:
    lines = [f"soak: {result.hands:,} house-bot hands, one table of {BOTS} bots, console script mode",
             f"{'hands':>8} {'RSS MB':>8} {'seconds':>8} {'memo MB':>8}"]
    for played, kb, seconds, memo in result.samples:
        lines.append(f"{played:>8,} {kb / 1024:>8.1f} {seconds:>8.1f} {memo / 2**20:>8.1f}")
    lines.append(f"console output: {out.lines:,} lines, {out.chars / 1e6:.1f} MB "
                 f"({out.chars / max(1, result.hands) / 1000:.1f} kB per hand)")
    lines.append(f"engine evaluation memo: {len(evaluate._HIGH):,} high and {len(evaluate._LOW):,} low entries "
                 "(bounded: one per multiset of ranks, filled as hands meet them)")
    after = [s for s in result.samples if s[0] >= result.warmup]
    if len(after) >= 2:
        growth = (after[-1][1] - after[0][1]) / 1024
        memo_growth = (after[-1][3] - after[0][3]) / 2**20
        lines.append(f"growth after the first {result.warmup:,} hands: {growth:+.1f} MB over "
                     f"{after[-1][0] - after[0][0]:,} hands (target: under 5 MB), of which the engine's "
                     f"evaluation memo {memo_growth:+.1f} MB")
    else:
        growth = (result.samples[-1][1] - result.samples[0][1]) / 1024
        lines.append(f"growth over the run: {growth:+.1f} MB (too short to leave out the first "
                     f"{result.warmup:,} hands)")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands to play (default 10,000)")
    parser.add_argument("--every", type=int, default=None, help="sample RSS every N hands (default 1,000)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="hands before the growth is counted (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    every = args.every or min(1_000, max(1, args.hands // 10))
    warmup = args.warmup if args.warmup is not None else min(2_000, args.hands // 5)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    out = Sink()
    with tempfile.TemporaryDirectory(prefix="studbot-soak-") as tmp:
        result = asyncio.run(soak(hands=args.hands, every=every, warmup=warmup, db=str(Path(tmp) / "soak.db"),
                                  out=out, seed=args.seed))
    print("\n".join(report(result, out)))


if __name__ == "__main__":
    main()
