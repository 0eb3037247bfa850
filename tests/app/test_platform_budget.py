"""A token's budget (issue 24): calls by priority, within the rate; near the limit boards coalesce.

:class:`bot.platform.budget.Budget` on its own, then as the Discord messenger and the Telegram rate limiter
use it: a player's cards before boards, boards before lines; a board waiting for its token is replaced by a
newer one of the same message (sent once, the newest); Telegram's edits take no token of the 30 a second.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from adapters.discord import messenger as messenger_module
from adapters.discord.messenger import DiscordMessenger
from adapters.telegram.limiter import StudRateLimiter
from bot.core.ports import BoardView, TableAddress
from bot.platform.budget import BOARD, CARDS, LINE, Budget


@pytest.mark.asyncio
async def test_the_budget_serves_cards_then_boards_then_lines() -> None:
    budget = Budget(rate=1)
    await budget.take(LINE)  # the one call of this second: the others wait
    served: list[str] = []

    async def ask(what: str, priority: int) -> None:
        await budget.take(priority)
        served.append(what)

    tasks = [asyncio.create_task(ask(what, priority)) for what, priority in
             (("line 1", LINE), ("board 1", BOARD), ("line 2", LINE), ("cards", CARDS), ("board 2", BOARD))]
    await asyncio.gather(*tasks)
    assert served == ["cards", "board 1", "board 2", "line 1", "line 2"]
    assert budget.waited == 5


@pytest.mark.asyncio
async def test_the_budget_keeps_to_its_rate() -> None:
    budget = Budget(rate=20)
    started = time.monotonic()
    await asyncio.gather(*(budget.take(BOARD) for _ in range(50)))
    elapsed = time.monotonic() - started
    assert 2.0 <= elapsed < 3.5, elapsed  # 20 in any second: 20 at once, 20 a second later, then 10


@pytest.mark.asyncio
async def test_a_cancelled_waiter_gives_way() -> None:
    budget = Budget(rate=1)
    await budget.take(LINE)
    waiting = asyncio.create_task(budget.take(LINE))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.wait_for(budget.take(CARDS), 1)  # not stuck behind the cancelled one


@pytest.mark.asyncio
async def test_a_call_counts_from_its_answer_not_from_its_token() -> None:
    """The platform counts a call when it arrives, somewhere between the token and the answer: a call in
    flight holds its place, and its second starts when it is answered (the 429s seen at twice the load came
    from calls the bot counted at the token and the fake at their late arrival)."""
    now = [0.0]
    budget = Budget(rate=1, monotonic=lambda: now[0])
    async with budget.slot(CARDS):
        now[0] = 3.0  # a slow upload: three seconds on its way
        waiting = asyncio.create_task(budget.take(BOARD))
        await asyncio.sleep(0.01)
        assert not waiting.done()  # a second after the token, but the call is still in flight
    await asyncio.sleep(0.01)
    assert not waiting.done()  # answered at 3.0: it counts until 4.0
    now[0] = 4.0
    await asyncio.wait_for(waiting, 3)


class _Recorder:
    """A discord.py client's HTTP side, as far as the messenger uses it: records what is sent, and when."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.ids = 900

    def get_partial_messageable(self, channel_id: int, **_: Any) -> Any:
        recorder = self

        async def send(content: str | None = None, *, embed: discord.Embed | None = None, **_: Any) -> Any:
            recorder.ids += 1
            recorder.sent.append(("dm" if channel_id == 5 else "post", (embed.title or "") if embed else content or ""))
            return SimpleNamespace(id=recorder.ids)

        def message(message_id: int) -> Any:
            async def edit(*, embed: discord.Embed, **_: Any) -> None:
                recorder.sent.append(("edit", embed.title or ""))
            return SimpleNamespace(edit=edit)
        return SimpleNamespace(send=send, get_partial_message=message)

    async def create_dm(self, user: Any) -> Any:
        return SimpleNamespace(id=5)


@pytest.mark.asyncio
async def test_near_the_limit_discord_boards_coalesce_and_cards_go_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messenger_module, "LIMIT", 1000)
    client = _Recorder()
    budget = Budget(rate=1)
    messenger = DiscordMessenger(client, budget)  # type: ignore[arg-type]
    table = TableAddress(platform="discord", community="1", channel="10")
    await budget.take(LINE)  # the budget is spent: everything from here on waits for its token
    for i in range(8):  # a busy table: eight boards while one token comes
        await messenger.publish_board(table=table, board=BoardView(text=f"b{i}", buttons=(), hand_no=1), ref="77")
        await asyncio.sleep(0.01)
    private = asyncio.create_task(messenger.send_private(platform="discord", user="42", text="your cards"))
    await asyncio.wait_for(private, 2)
    assert await messenger.flush(timeout=3)
    assert ("dm", "your cards") in client.sent
    edits = [text for kind, text in client.sent if kind == "edit"]
    assert edits[-1] == "b7" and len(edits) <= 2, client.sent  # the newest board, not eight
    assert client.sent.index(("dm", "your cards")) < client.sent.index(("edit", "b7"))  # the cards first
    await messenger.close()


@pytest.mark.asyncio
async def test_telegram_edits_take_no_token_of_the_thirty_a_second() -> None:
    limiter = StudRateLimiter(overall=10, group=(1000, 60.0), private=(1000, 1.0))
    limiter.budget = Budget(rate=1)
    calls: list[str] = []

    async def call(name: str) -> bool:
        calls.append(name)
        return True

    async def request(endpoint: str, chat: int, **data: Any) -> None:
        await limiter.process_request(call, (f"{endpoint} {chat}",), {}, endpoint, {"chat_id": chat, **data}, None)

    await request("sendMessage", -100, text="line")  # takes the one token
    started = time.monotonic()
    await asyncio.gather(*(request("editMessageCaption", -100) for _ in range(20)))
    # edits do not wait for the overall budget: its next token is a second away (and 20 of them, 20 s)
    assert time.monotonic() - started < 0.9
    order = asyncio.gather(request("sendMessage", -100, text="a line"),
                           request("sendPhoto", -100, reply_markup="{}"),
                           request("sendPhoto", 42))
    await order
    assert calls[-3:] == ["sendPhoto 42", "sendPhoto -100", "sendMessage -100"]  # the cards, the board, the line
