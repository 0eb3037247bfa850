"""Leak test: over 200+ hands, no down card appears in a public line before its owner shows it,
and no private line ever carries another player's down cards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from backends import rows
from test_console import Table

from engine import Card

pytestmark = [pytest.mark.usefixtures("store_backend"),
              pytest.mark.sqlite_only(reason="what the public lines show, not the store: PostgreSQL adds nothing "
                                             "(the console with house bots runs on it in tests/app/test_console.py)")]


def _forms(card: str) -> list[str]:
    c = Card.from_str(card)
    return [c.pretty, str(c)]


def _mentions(line: str, form: str) -> bool:
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(form)}(?![0-9A-Za-z])", line) is not None


FACE_UP = "[table] All in: the hands face up — "
"""The line that turns the live hands face up at an all-in; a folded player's cards are never in it."""


@pytest.mark.asyncio
async def test_no_down_card_in_public_before_the_showdown(tmp_path: Path) -> None:
    db = tmp_path / "leak.db"
    async with Table(db, seed=11) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 400")
        names = iter(f"Bot{i}" for i in range(1000))
        for _ in range(4):
            await t.say("ann", f"addbot {next(names)}")
        await t.say("ann", "start")
        for _ in range(5000):
            if t.runtime.table.hand_no > 210:
                break
            seats = t.runtime.table.seats.values()
            if sum(1 for s in seats if s.stack > 0) < 3:
                await t.say("ann", f"addbot {next(names)}")
            if t.runtime.table.seat_of("ann") is None:
                await t.say("ann", "join 400")
            hand = t.runtime.hand
            acting = hand.actor if hand is not None and not hand.is_over else None
            if acting is not None and t.runtime.names[acting] == "ann":
                _, legal, token = t.to_act()
                action = "bring-in" if "bring-in" in legal else "check" if "check" in legal else "call"
                await t.say("ann", f"{action} @{token}")
            else:
                await t.wait(5)
        lines = list(t.out)
    files = {no: json.loads(text) for no, text in await rows(
        db, "SELECT hand_no, hand_file FROM hands WHERE status = 'done'")}
    assert len(files) >= 200
    # Split the transcript by hand.
    segments: dict[int, list[str]] = {}
    current = 0
    for line in lines:
        if m := re.match(r"\[table\] Hand #(\d+):", line):
            current = int(m.group(1))
        segments.setdefault(current, []).append(line)
    checked = 0
    for no, hand_file in files.items():
        segment = segments[no]
        for name, cards in hand_file["cards"].items():
            down = [cards[i] for i in (0, 1, 6) if i < len(cards)]
            forms = [f for card in down for f in _forms(card)]
            for line in segment:
                if line.startswith(f"[table] {name} shows "):
                    break  # shown at the showdown: public from here on
                if line.startswith(FACE_UP) and name in [h.split(" ")[0] for h in line[len(FACE_UP):].split(", ")]:
                    break  # turned face up at an all-in (issue 23): the same showdown, told as the run-out begins
                if line.startswith("[table] ") or (line.startswith("[dm ") and not line.startswith(f"[dm {name}]")):
                    leaked = [f for f in forms if _mentions(line, f)]
                    assert not leaked, f"hand #{no}: {name}'s down card {leaked} in {line!r}"
                    checked += 1
    assert checked > 10_000
