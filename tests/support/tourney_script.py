"""Play a sit-and-go in the console's script mode, in process, on its manual clock (shared by the tests)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adapters.console.app import ScriptSession
from bot.core.config import Settings

PROMPT = re.compile(r"^\[table\] (\S+) to act \(\d+s\): (.*) \[turn (\S+)\]$")


@dataclass
class Played:
    lines: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)


def next_line(lines: list[str], *, human: str, answered: set[str]) -> str:
    """What a patient player types next: an answer to their newest prompt not yet answered (check, else
    call, else the first option), else ``/sleep 5`` to let the clock run."""
    prompt = next((m for line in reversed(lines) if (m := PROMPT.match(line))), None)
    if prompt is not None and prompt.group(1) == human and prompt.group(3) not in answered:
        answered.add(prompt.group(3))
        options = [o.split(" ")[0] for o in prompt.group(2).split(" · ")]
        choice = "check" if "check" in options else "call" if "call" in options else options[0]
        return f"{human}: {choice} @{prompt.group(3)}"
    return "/sleep 5"


async def play_sng(*, db: str, seed: int, setup: list[str], human: str = "ann", max_steps: int = 4000,
                   balance: int = 1000) -> Played:
    """Feed ``setup``, then answer every prompt of ``human`` (check, else call, else the first
    option) and let the clock run 5 seconds otherwise, until the tournament's table closes."""
    out = Played()
    session = await ScriptSession.open(db=db, seed=seed, settings=Settings(starting_balance=balance),
                                       write=out.lines.append)

    async def feed(line: str) -> None:
        out.sent.append(line)
        await session.feed(line)

    try:
        for line in setup:
            await feed(line)
        answered: set[str] = set()
        for _ in range(max_steps):
            if not session.bot.tables:
                break
            await feed(next_line(out.lines, human=human, answered=answered))
        await feed(f"{human}: tourney results")
    finally:
        await session.close()
    return out
