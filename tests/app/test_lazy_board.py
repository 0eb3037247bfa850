"""A table behind an outbox draws its board when the outbox sends it, not on every change.

The outbox (:class:`~bot.platform.outbox.Coalescer`) shows a table's board at most every so
often; the table may change many times meanwhile. These tests count the drawings
(``render.board``) and check that what is sent is the table as it stands when sent.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_console import SETTINGS
from waiting import until

from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.ports import BoardView, Inbound, TableAddress
from bot.platform.outbox import Coalescer
from bot.schema import MIGRATIONS
from bot.store import open_sqlite
from bot.text import render


class Boards:
    """A messenger that keeps the boards it is asked to show."""

    def __init__(self) -> None:
        self.boards: list[tuple[str | None, BoardView]] = []
        self.lines: list[str] = []

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        self.boards.append((ref, board))
        return ref or f"board-{len(self.boards)}"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        self.lines += text.splitlines()

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


def said(user: str, text: str) -> Inbound:
    return Inbound(platform="console", community="local", channel="main", user=user, name=user, text=text)


@pytest.mark.asyncio
async def test_many_changes_between_two_flushes_draw_one_board_the_latest(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    board = render.board

    def counted(*args: object, **kwargs: object) -> tuple[str, tuple[object, ...]]:
        text, buttons = board(*args, **kwargs)  # type: ignore[arg-type]
        drawn.append(text)
        return text, buttons

    monkeypatch.setattr(render, "board", counted)
    shown = Boards()
    outbox = Coalescer(shown, interval=10_000)
    store = await open_sqlite(str(tmp_path / "t.db"), schema=MIGRATIONS)
    clock = ManualClock()
    bot = build_bot(SETTINGS, store=store, messenger=outbox, clock=clock, rng=random.Random(3))
    await bot.start()
    try:
        for user, text in [("ann", "new"), ("ann", "join 100"), ("bob", "join 100"), ("ann", "start")]:
            assert (await bot.handle(said(user, text))).ok, text
        await clock.advance(SETTINGS.next_hand_delay)  # the first hand is dealt after the table's pause
        rt = bot.tables["console:main"]

        async def act() -> None:
            hand = rt.hand
            assert hand is not None and hand.actor is not None and rt.setup is not None
            legal = {a.value for a in hand.legal_actions()}
            move = next(m for m in ("bring-in", "call", "check") if m in legal)
            assert (await bot.handle(said(rt.setup.players[hand.actor].user, f"{move} @{rt.turn}"))).ok

        # the deal's board is drawn and shown at once: its private cards follow it (issue 24)
        await until(lambda: len(shown.boards) == 2, timeout=1, what="the deal's board")
        assert len(drawn) == 2 and [ref for ref, _ in shown.boards] == [None, "board-1"]
        assert "third street" in shown.boards[-1][1].text and shown.boards[-1][1].urgent
        for _ in range(4):  # bring in, then calls and checks
            await act()
        assert len(drawn) == 2, "only the posted board and the deal's are drawn before the outbox sends"
        await outbox.drain()
        assert len(drawn) == 3  # four changes, one more drawing: when it is sent
        ref, sent = shown.boards[-1]
        assert ref == "board-1" and not sent.final
        hand = rt.hand
        assert hand is not None and hand.actor is not None
        assert f"{rt.names[hand.actor]} to act" in sent.text  # the table as it is now
        assert {b.command.split("@")[1] for b in sent.buttons if "@" in b.command} == {rt.turn}
        while not hand.is_over:  # to the showdown: the edits are held, the final board goes at once
            await act()
        await until(lambda: shown.boards[-1][1].final, timeout=1, what="the final board")
        ref, sent = shown.boards[-1]
        assert sent.final and "showdown" in sent.text, "a final board is drawn and sent at once"
        assert len(drawn) == 5  # and seventh street's deal, at once
    finally:
        await bot.close()
        await outbox.drain()
        await store.close()
