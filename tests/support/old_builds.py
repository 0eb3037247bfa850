"""Stand-ins for older builds, for the tests that make the database such a build left by running
today's bot on an older schema (``MIGRATIONS[:n]``): the statements that name a column added
since are patched back to what those builds wrote and read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from bot.core.model import Seat, Table, TableClocks
from bot.store import base
from bot.table import rebuys, timebank
from bot.table.runtime import Runtime


class _WithDefaults(Mapping[str, Any]):
    """A row of an older schema, read as today's: the columns added since have their defaults."""

    def __init__(self, row: Any, **defaults: Any) -> None:
        self.row, self.defaults = row, defaults

    def __getitem__(self, key: str) -> Any:
        return self.defaults[key] if key in self.defaults else self.row[key]

    def __iter__(self) -> Iterator[str]:
        return iter([*self.row.keys(), *self.defaults])

    def __len__(self) -> int:
        return len(list(iter(self)))


def before_schema_14(monkeypatch: pytest.MonkeyPatch) -> None:
    """The builds before schema 14 (seats.kicked and tables.closing: a kick or a stop during a hand
    waits for its end) wrote and read seats and tables without those columns."""

    async def save_seat(self: base.Tx, table_id: int, seat: Seat) -> None:
        await self.execute(
            "INSERT INTO seats (table_id, seat_no, user_id, name, stack, is_bot, sitting_out, leaving, timeouts, "
            "unreachable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, seat_no) DO UPDATE SET "
            "user_id = excluded.user_id, name = excluded.name, stack = excluded.stack, is_bot = excluded.is_bot, "
            "sitting_out = excluded.sitting_out, leaving = excluded.leaving, timeouts = excluded.timeouts, "
            "unreachable = excluded.unreachable",
            (table_id, seat.seat_no, seat.user, seat.name, seat.stack, int(seat.is_bot), int(seat.sitting_out),
             int(seat.leaving), seat.timeouts, int(seat.unreachable)))

    async def save_table(self: base.Tx, table: Table) -> None:
        await self.execute(
            "UPDATE tables SET stakes = ?, timer = ?, running = ?, hand_no = ?, board_ref = ?, next_hand_at = ?, "
            "view = ?, lang = ? WHERE id = ?",
            (base._stakes_json(table.stakes), table.timer, int(table.running), table.hand_no, table.board_ref,
             table.next_hand_at, table.view, table.lang, table.id))

    seat_of, table_of = base._seat, base._table
    monkeypatch.setattr(base.Tx, "save_seat", save_seat)
    monkeypatch.setattr(base.Tx, "save_table", save_table)
    monkeypatch.setattr(base, "_seat", lambda row: seat_of(_WithDefaults(row, kicked=0)))
    monkeypatch.setattr(base, "_table", lambda row: table_of(_WithDefaults(row, closing=0)))
    before_schema_15(monkeypatch)


def before_schema_15(monkeypatch: pytest.MonkeyPatch) -> None:
    """The builds before schema 15 (issue 22: time banks and pauses, rebuys and approvals, sessions) read
    none of their tables: a table's clocks are its defaults, nothing waits for approval, no rebuy waits."""

    async def clocks(store: object, table_id: int, *, default: TableClocks) -> TableClocks:
        return default

    async def approving(store: object, rt: Runtime) -> bool:
        return False

    async def pending(store: object, rt: Runtime) -> dict[str, int]:
        rt.rebuys = rt.rebuys if rt.rebuys is not None else {}
        return rt.rebuys

    async def no_request(store: object, **where: object) -> None:
        return None

    monkeypatch.setattr(timebank, "load", clocks)
    monkeypatch.setattr(rebuys, "approving", approving)
    monkeypatch.setattr(rebuys, "pending", pending)
    monkeypatch.setattr(rebuys, "open_request_of", no_request)
