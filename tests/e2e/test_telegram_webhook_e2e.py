"""Telegram's webhook with retries and several workers: every update applied once.

The real bootstrap (``adapters.run.serve``) and python-telegram-bot behind the webhook,
against the fake Bot API (tests/support/fakes/telegram_server.py), which POSTs every update to the
webhook like Telegram and, with ``balancer`` set, spreads them over several workers like a load
balancer in front of them; ``deliver_again`` is Telegram's retry of an update. Workers share
one database file, each with its own Store and StudBot. (Two workers playing one table need
the instances to share the table's turns: tests/slow/test_scale_e2e.py.)
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import FakeBotAPI
from telegram_harness import ANN, BOB, GROUP, Served, free_port, press
from telegram_harness import fake as fake  # the fixture

from adapters.telegram.webhook import WebhookWorker
from bot.app import StudBot

pytestmark = pytest.mark.asyncio

OTHER_GROUP = -1009876543210


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> list[WebhookWorker]:
    """The webhook workers the bootstrap builds, in order (their counts of updates applied and duplicates)."""
    made: list[WebhookWorker] = []
    init = WebhookWorker.__init__

    def recorded(self: WebhookWorker, **kw: Any) -> None:
        init(self, **kw)
        made.append(self)

    monkeypatch.setattr(WebhookWorker, "__init__", recorded)
    return made


async def tables_in(bot: StudBot, chat: int) -> int:
    rows = await bot.store.fetch("SELECT COUNT(*) FROM tables WHERE platform = 'telegram' AND channel = ?",
                                 (str(chat),))
    return int(rows[0][0])


def replies_to(fake: FakeBotAPI, message_id: int, chat: int = GROUP) -> list[Any]:
    return [c for c in fake.sent("sendMessage", chat_id=chat)
            if (c.params.get("reply_parameters") or {}).get("message_id") == message_id]


def hook(port: int) -> str:
    return f"http://127.0.0.1:{port}/tg/hook"


async def test_a_retried_update_is_applied_once(fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                workers: list[WebhookWorker]) -> None:
    port = free_port()
    async with Served(fake, tmp_path / "t.db", monkeypatch, webhook=hook(port), webhook_port=port) as served:
        assert fake.webhook is not None and fake.webhook["max_connections"] == 40
        for uid in (ANN, BOB):
            fake.command(uid, uid, "/start")
        mid = fake.command(GROUP, ANN, "/stud new")
        new = max(fake.pushed)
        await fake.delivered(new)
        boards = len(fake.boards(GROUP))
        assert await tables_in(served.bot, GROUP) == 1 and boards == 1
        answered = len(replies_to(fake, mid))

        assert await fake.deliver_again(new) == 200  # Telegram did not get the first 200: it sends it again
        assert await tables_in(served.bot, GROUP) == 1
        assert len(fake.boards(GROUP)) == boards and len(replies_to(fake, mid)) == answered

        answer = await press(fake, ANN, "Join")
        assert answer["text"].startswith("Seated")
        join = max(fake.pushed)
        assert await fake.deliver_again(join) == 200
        assert len([c for c in fake.sent("answerCallbackQuery") if c.params["callback_query_id"] ==
                    fake.pushed[join]["callback_query"]["id"]]) == 1  # answered once: applied once

        # the same update POSTed twice at once: the second waits for the first, then is not applied
        mid = fake.command(GROUP, BOB, "/stud join")
        both = max(fake.pushed)
        status = await fake.deliver_again(both)
        await fake.delivered(both, times=2)
        assert status == 200 and all(s == 200 for u, s in fake.deliveries if u == both)
        assert served.runtime().table.seat_of(str(BOB)) is not None
        assert len(replies_to(fake, mid)) <= 1
        assert (workers[0].applied, workers[0].duplicates) == (len(fake.pushed), 3)
        rows = await served.bot.store.fetch("SELECT update_id, done FROM platform_updates ORDER BY update_id")
        assert [(int(r[0]), int(r[1])) for r in rows] == [(u, 1) for u in sorted(fake.pushed)]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_two_workers_behind_one_url_apply_each_update_once(fake: FakeBotAPI, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 workers: list[WebhookWorker], backend: str,
                                                                 request: pytest.FixtureRequest) -> None:
    first, second = free_port(), free_port()
    db = tmp_path / "shared.db"
    url = request.getfixturevalue("pg_database") if backend == "postgresql" else None
    async with Served(fake, db, monkeypatch, webhook=hook(first), webhook_port=first, database_url=url) as a, \
            Served(fake, db, monkeypatch, webhook=hook(first), webhook_port=second, webhook_register=False,
                   database_url=url) as b:
        assert type(a.bot.store).__name__ == ("PostgresStore" if url else "SqliteStore")
        assert len(fake.sent("setWebhook")) == 1  # only the registering worker set it
        fake.balancer = [hook(first), hook(second)]
        fake.group(OTHER_GROUP)

        fake.command(GROUP, ANN, "/stud new")  # to the first worker
        new = max(fake.pushed)
        await fake.delivered(new)
        assert await fake.deliver_again(new) == 200  # the retry reaches the second worker: not applied there
        assert f"telegram:{GROUP}" in a.bot.tables and not b.bot.tables
        assert await tables_in(a.bot, GROUP) == 1

        # one update POSTed to both workers at once: one applies it, the other waits and does not
        fake.command(OTHER_GROUP, BOB, "/stud new")  # the balancer's turn: the first worker
        again = max(fake.pushed)
        status = await fake.deliver_again(again, to=hook(second))
        await fake.delivered(again, times=2)
        assert status == 200 and all(s == 200 for u, s in fake.deliveries if u == again)
        assert await tables_in(b.bot, OTHER_GROUP) == 1
        assert (f"telegram:{OTHER_GROUP}" in a.bot.tables) != (f"telegram:{OTHER_GROUP}" in b.bot.tables)
        assert [w.applied for w in workers] in ([2, 0], [1, 1])
        assert sum(w.duplicates for w in workers) == 2
        await asyncio.sleep(0)


async def test_the_webhook_refuses_what_is_not_an_update(fake: FakeBotAPI, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp

    port = free_port()
    async with Served(fake, tmp_path / "t.db", monkeypatch, webhook=hook(port), webhook_port=port) as served:
        assert fake.webhook is not None
        secret = {"X-Telegram-Bot-Api-Secret-Token": str(fake.webhook["secret_token"])}
        async with aiohttp.ClientSession() as session:
            for body, status in (({"update_id": 1}, 200), ({"update_id": "1"}, 400), ([1], 400), ({}, 400)):
                async with session.post(hook(port), json=body, headers=secret) as response:
                    assert response.status == status, body
            async with session.post(hook(port), data=b"{not json", headers=secret) as response:
                assert response.status == 400
            async with session.post(hook(port), json={"update_id": 2}) as response:
                assert response.status == 403
        rows = await served.bot.store.fetch("SELECT update_id FROM platform_updates")
        assert [int(r[0]) for r in rows] == [1]


async def test_item14_a_slow_update_keeps_its_claim_so_a_retry_waits_for_it_and_is_not_applied(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: list[WebhookWorker]) -> None:
    """A dead worker's claim is taken over after the lease (2 s here); a live worker applying an update for
    longer (a forwarded command waits for its holder) renews its claim, so the retry waits, then is done."""
    port = free_port()
    async with Served(fake, tmp_path / "t.db", monkeypatch, webhook=hook(port), webhook_port=port,
                      lease_seconds=2):
        app = workers[0].app
        applied: list[int] = []
        process = type(app).process_update

        async def slowly(self: Any, update: Any) -> None:
            applied.append(update.update_id)
            await asyncio.sleep(4.5)  # past the claim's 2 s, twice
            await process(self, update)

        monkeypatch.setattr(type(app), "process_update", slowly)
        fake.command(ANN, ANN, "/start")
        update = max(fake.pushed)
        await asyncio.sleep(3)
        assert await fake.deliver_again(update) == 200  # waited for the first delivery: not applied again
        await fake.delivered(update, times=2)
        assert applied == [update] and (workers[0].applied, workers[0].duplicates) == (1, 1)
