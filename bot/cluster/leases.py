"""Table leases and the inbox of forwarded commands: the SQL of cluster mode (bot/cluster/cluster.py).

A lease row says which process (``owner``, its ``STUDBOT_INSTANCE``) holds a table, until
when (``expires_at``, renewed every third of the lease), and since which taking (``epoch``,
one more at every taking). Every statement here is portable (SQLite and PostgreSQL).
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict
from typing import Any

from bot.core.ports import Attachment, Inbound, Reply
from bot.store import Store, Tx

MIGRATION = """
CREATE TABLE table_leases (
    table_id INTEGER NOT NULL REFERENCES tables (id), owner TEXT NOT NULL, epoch INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (table_id)
);
CREATE TABLE inbox (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, inbound TEXT NOT NULL, received_by TEXT NOT NULL,
    taken_by TEXT, reply TEXT, status TEXT NOT NULL DEFAULT 'new'
        CHECK (status IN ('new', 'taken', 'done', 'cancelled')),
    created_at REAL NOT NULL
);
CREATE INDEX inbox_new ON inbox (table_id, id) WHERE status = 'new';
"""
"""Cluster mode: who holds each table, and the commands forwarded to the holder."""


async def create(tx: Tx, *, table_id: int, owner: str, expires_at: float) -> int:
    """The lease of a table just created in ``tx``, to its creator; its epoch."""
    await tx.execute("INSERT INTO table_leases (table_id, owner, epoch, expires_at) VALUES (?, ?, 1, ?)",
                     (table_id, owner, expires_at))
    return 1


async def take(store: Store, *, table_id: int, owner: str, now: float, expires_at: float) -> int | None:
    """Take the table's lease if it is free, expired or already ``owner``'s (a restarted process
    reclaims its own at once): one conditional UPDATE, the epoch one more. The new epoch, or
    None if a live process holds it."""
    async with store.atomic() as tx:
        await tx.execute("INSERT INTO table_leases (table_id, owner, epoch, expires_at) VALUES (?, '', 0, 0) "
                         "ON CONFLICT (table_id) DO NOTHING", (table_id,))
        row = await tx.one("UPDATE table_leases SET owner = ?, epoch = epoch + 1, expires_at = ? "
                           "WHERE table_id = ? AND (owner = ? OR expires_at < ?) RETURNING epoch",
                           (owner, expires_at, table_id, owner, now))
    return None if row is None else int(row["epoch"])


async def renew(store: Store, *, owner: str, now: float, expires_at: float) -> dict[int, int]:
    """Push back every lease ``owner`` holds and has not let expire, in one statement: table id ->
    epoch of each. An expired one is left alone (another process may be taking it: on PostgreSQL,
    locking it here too could deadlock with that taking); it is the owner's again only by
    :func:`take`, like anyone's. A closed table's lease is not renewed: it lapses."""
    async with store.atomic() as tx:
        rows = await tx.all("UPDATE table_leases SET expires_at = ? WHERE owner = ? AND expires_at >= ? "
                            "AND table_id IN (SELECT id FROM tables WHERE open = 1) RETURNING table_id, epoch",
                            (expires_at, owner, now))
    return {int(r["table_id"]): int(r["epoch"]) for r in rows}


async def release(store: Store, *, owner: str, table_ids: list[int]) -> None:
    """Leave these tables to whoever comes first (a clean stop): their leases expire now."""
    if not table_ids:
        return
    async with store.atomic() as tx:
        await tx.executemany("UPDATE table_leases SET expires_at = 0 WHERE table_id = ? AND owner = ?",
                             [(tid, owner) for tid in table_ids])


async def orphans(store: Store, *, now: float) -> list[int]:
    """Open tables nobody holds: no lease yet, or an expired one (its process died or stopped)."""
    rows = await store.fetch(
        "SELECT t.id FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id "
        "WHERE t.open = 1 AND (l.table_id IS NULL OR l.expires_at < ?) ORDER BY t.id", (now,))
    return [int(r["id"]) for r in rows]


async def table_in(store: Store, *, platform: str, channel: str) -> tuple[int, str | None, float] | None:
    """The open table of a channel: (its id, its lease's owner or None, when that lease expires)."""
    rows = await store.fetch(
        "SELECT t.id, l.owner, l.expires_at FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id "
        "WHERE t.platform = ? AND t.channel = ? AND t.open = 1", (platform, channel))
    if not rows:
        return None
    row = rows[0]
    return int(row["id"]), row["owner"], float(row["expires_at"] or 0.0)


# ---------------------------------------------------------------------- the inbox

INBOX = "studbot_inbox"
"""The notification channel of new inbox rows (payload: the table id)."""
ANSWERED = "studbot_answered"
"""The notification channel of answered inbox rows (payload: the row's id)."""
REACHABLE = "studbot_reachable"
"""The notification channel of a user who can get private messages again (payload: platform TAB user)."""
LANGUAGE = "studbot_language"
"""The notification channel of a user's language chosen with 'lang' (payload: platform TAB user)."""


async def language(store: Store, *, platform: str, user: str) -> tuple[str, bool] | None:
    """A user's language as stored (another process may have changed it): (language, chosen)."""
    rows = await store.fetch("SELECT lang, chosen FROM user_langs WHERE platform = ? AND user_id = ?",
                             (platform, user))
    return (str(rows[0]["lang"]), bool(rows[0]["chosen"])) if rows else None


async def post(store: Store, *, table_id: int, msg: Inbound, received_by: str, now: float) -> int:
    """Forward a command to the table's holder; the inbox row's id."""
    async with store.atomic() as tx:
        inbox_id = await tx.insert("INSERT INTO inbox (table_id, inbound, received_by, status, created_at) "
                                   "VALUES (?, ?, ?, 'new', ?)", (table_id, json.dumps(asdict(msg)), received_by, now))
        tx.notify(INBOX, str(table_id))  # PostgreSQL: the holder looks at once (else at its next poll)
    return inbox_id


async def answer_of(store: Store, inbox_id: int) -> tuple[str, Reply | None]:
    """The row's status, and its reply once 'done'."""
    rows = await store.fetch("SELECT status, reply FROM inbox WHERE id = ?", (inbox_id,))
    if not rows:
        return "gone", None
    status = str(rows[0]["status"])
    return status, decode_reply(rows[0]["reply"]) if status == "done" and rows[0]["reply"] else None


async def cancel(store: Store, inbox_id: int) -> bool:
    """Withdraw a command nobody has taken yet; False if its holder took it meanwhile."""
    async with store.atomic() as tx:
        row = await tx.one("UPDATE inbox SET status = 'cancelled' WHERE id = ? AND status = 'new' RETURNING id",
                           (inbox_id,))
    return row is not None


async def forget(store: Store, inbox_id: int) -> None:
    async with store.atomic() as tx:
        await tx.execute("DELETE FROM inbox WHERE id = ?", (inbox_id,))


async def claim(store: Store, *, owner: str) -> list[tuple[int, int, Inbound]]:
    """The commands waiting for the tables ``owner`` holds, taken (each once), in the order they came."""
    async with store.atomic() as tx:
        rows = await tx.all(
            "UPDATE inbox SET status = 'taken', taken_by = ? WHERE status = 'new' AND table_id IN "
            "(SELECT table_id FROM table_leases WHERE owner = ?) RETURNING id, table_id, inbound", (owner, owner))
    return sorted((int(r["id"]), int(r["table_id"]), Inbound(**json.loads(r["inbound"]))) for r in rows)


async def taker_gone(store: Store, *, inbox_id: int, now: float) -> bool:
    """Whether the process that took a forwarded command no longer holds its table (it died, or lost the
    lease): then nobody will answer it."""
    rows = await store.fetch(
        "SELECT i.taken_by, l.owner, l.expires_at FROM inbox i LEFT JOIN table_leases l ON l.table_id = i.table_id "
        "WHERE i.id = ?", (inbox_id,))
    if not rows:
        return True
    row = rows[0]
    return row["owner"] is None or row["owner"] != row["taken_by"] or float(row["expires_at"]) < now


async def waiting(store: Store, *, owner: str) -> bool:
    """Whether a command waits for one of ``owner``'s tables (a cheap read before :func:`claim`)."""
    rows = await store.fetch(
        "SELECT 1 FROM inbox i JOIN table_leases l ON l.table_id = i.table_id "
        "WHERE i.status = 'new' AND l.owner = ? LIMIT 1", (owner,))
    return bool(rows)


async def done(store: Store, *, inbox_id: int, reply: Reply) -> None:
    """The answer to a forwarded command; its sender is told (PostgreSQL) or finds it at its next poll."""
    async with store.atomic() as tx:
        await tx.execute("UPDATE inbox SET status = 'done', reply = ? WHERE id = ?", (encode_reply(reply), inbox_id))
        tx.notify(ANSWERED, str(inbox_id))


async def sweep_inbox(store: Store, *, before: float) -> None:
    """Rows whose sender is gone (it deletes its own once answered)."""
    async with store.atomic() as tx:
        await tx.execute("DELETE FROM inbox WHERE created_at < ? AND status <> 'new'", (before,))


def encode_reply(reply: Reply) -> str:
    """A Reply as JSON (bytes as base64).

    >>> r = Reply("hi", private=True, files=(Attachment("a.txt", b"x"),), image=b"png")
    >>> decode_reply(encode_reply(r)) == r
    True
    """
    data: dict[str, Any] = asdict(reply)
    data["files"] = [{"name": f.name, "data": base64.b64encode(f.data).decode(), "mime": f.mime} for f in reply.files]
    data["image"] = None if reply.image is None else base64.b64encode(reply.image).decode()
    return json.dumps(data)


def decode_reply(text: str) -> Reply:
    data = json.loads(text)
    files = tuple(Attachment(name=f["name"], data=base64.b64decode(f["data"]), mime=f["mime"]) for f in data["files"])
    image = None if data["image"] is None else base64.b64decode(data["image"])
    return Reply(text=data["text"], private=data["private"], ok=data["ok"], code=data["code"], files=files,
                 image=image)
