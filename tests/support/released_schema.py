"""A database as the released bot (schema ``RELEASED_SCHEMA``) left it: a hand in progress.

``tests/data/released_schema.json`` holds every row of such a database, made once by the released
build: ann and bob at a console table, a settled hand and the second one in progress after its
bring-in. To write it, run this file with the release's code: ``git archive <release> | tar -x -C
/tmp/rel && cd /tmp/rel && PYTHONPATH=. python <this file> <this directory>/data/released_schema.json``
(schema 9 was written so from f12b178, main before issue 14). :func:`load` writes those
rows into a database made with ``MIGRATIONS[:RELEASED_SCHEMA]`` on either backend, so the test of
the migrations keeps testing the previous release whatever the code of today writes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bot.store import Store

DATA = Path(__file__).parents[1] / "data" / "released_schema.json"


async def dump(store: Store) -> dict[str, Any]:
    """Every row of every table of a SQLite store, tables in the order they were created (parents first)."""
    names = [r[0] for r in await store.fetch("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
    tables: dict[str, Any] = {}
    for name in names:
        columns = [r[1] for r in await store.fetch(f"PRAGMA table_info({name})")]
        rows = [list(r) for r in await store.fetch(f"SELECT * FROM {name} ORDER BY rowid")]
        tables[name] = {"columns": columns, "rows": rows}
    return {"schema": store.schema_version, "tables": tables}


async def load(store: Store) -> None:
    """Write the released database's rows into ``store`` (at schema ``RELEASED_SCHEMA``, empty)."""
    from bot.schema import RELEASED_SCHEMA

    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["schema"] == store.schema_version == RELEASED_SCHEMA, "the data file is of another release"
    async with store.atomic() as tx:
        for name, table in data["tables"].items():
            if table["rows"]:
                marks = ", ".join("?" * len(table["columns"]))
                await tx.executemany(f"INSERT INTO {name} ({', '.join(table['columns'])}) VALUES ({marks})",
                                     [tuple(row) for row in table["rows"]])
        await store._set_version(tx, RELEASED_SCHEMA)  # and, on PostgreSQL, the ids go on after the rows'


async def write(out: Path) -> None:
    """Play the released build to a hand in progress and write its rows to ``out``."""
    from test_console import Table

    from bot.core.clock import ManualClock

    with tempfile.TemporaryDirectory() as tmp:
        async with Table(Path(tmp) / "released.db", seed=7, clock=ManualClock()) as t:
            for user, text in (("ann", "new"), ("ann", "join"), ("bob", "join"), ("ann", "start")):
                await t.say(user, text)
            await t.call_down()
            await t.wait(6)
            player, _, _ = t.to_act()
            await t.say(player, "bring-in")
            data = await dump(t.store)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd() / "tests"))  # the release's test helpers
    asyncio.run(write(Path(sys.argv[1])))
