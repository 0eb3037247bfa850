"""Host approvals on Discord end to end (issue 22): a rebuy and a join under ``config approve=on`` are
request messages with Approve and Deny buttons (``stud:approve#id``); only the host's press answers,
and the requester is told in a DM.

Same harness as tests/e2e/test_discord_e2e.py (tests/support/discord_harness.py): the real bootstrap and
discord.py against the fake Discord on loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_harness import ANN, BOB, CAT, recorded_bots, say, start_bot, until
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_server import FakeDiscord, Posted

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]


def _request(fake: FakeDiscord, text: str) -> Posted | None:
    return next((p for p in fake.channel_posts() if text in p.content and p.custom_ids), None)


async def test_requests_carry_approve_and_deny_buttons_only_the_host_may_press(
        fake: FakeDiscord, tmp_path: Path, fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    bots = recorded_bots(monkeypatch)
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "Seated" in await say(fake, ANN, "join", buy_in=100)
        assert "Seated" in await say(fake, BOB, "join", buy_in=100)
        assert "Done" in await say(fake, ANN, "config", approve="on")
        assert "Asked" in await say(fake, BOB, "rebuy", chips=50)
        await until(lambda: _request(fake, "Bob asks to rebuy 50 chips") is not None, what="Bob's request")
        request = _request(fake, "Bob asks to rebuy 50 chips")
        assert request is not None and sorted(request.custom_ids) == ["stud:approve#1", "stud:deny#1"]
        pressed = await fake.press(BOB, "stud:approve#1", message_id=request.message_id)
        assert "creator or an admin" in await pressed.answer() and pressed.ephemeral
        rt = bots[-1].tables[f"discord:{request.channel}"]
        assert rt.table.seat_of(str(BOB)).stack == 100
        pressed = await fake.press(ANN, "stud:approve#1", message_id=request.message_id)
        assert "Approved: Bob is told." in await pressed.answer()
        assert rt.table.seat_of(str(BOB)).stack == 150
        await until(lambda: any("approved your rebuy" in t for t in fake.dms.get(BOB, [])), what="Bob's DM")
        await until(lambda: any(p.message_id == request.message_id and p.kind == "edit" for p in fake.posted),
                    what="the request's message closed")
        closed = [p for p in fake.posted if p.message_id == request.message_id][-1]
        assert closed.content == "Bob's request: approved by Ann." and not closed.custom_ids
        pressed = await fake.press(ANN, "stud:deny#1", version=request)  # a press on the buttons it had
        assert "approved already" in await pressed.answer()
        # a join asked for, denied by the host's button: Cat is told in a DM and stays out
        assert "Asked" in await say(fake, CAT, "join")
        await until(lambda: _request(fake, "Cat asks to sit down") is not None, what="Cat's request")
        request = _request(fake, "Cat asks to sit down")
        assert request is not None
        pressed = await fake.press(ANN, "stud:deny#2", message_id=request.message_id)
        assert "Denied: Cat is told." in await pressed.answer()
        await until(lambda: any("denied your request" in t for t in fake.dms.get(CAT, [])), what="Cat's DM")
        assert rt.table.seat_of(str(CAT)) is None
        # the host puts Bob out with /stud sitout name:Bob; Bob comes back himself
        assert "creator or an admin" in await say(fake, CAT, "sitout", name="Bob")
        assert "Done: Bob sits out until they say back." in await say(fake, ANN, "sitout", name="Bob")
        assert rt.table.seat_of(str(BOB)).sitting_out
        await until(lambda: any("The host put you out" in t for t in fake.dms.get(BOB, [])), what="Bob's DM")
        assert "You play from the next hand" in await say(fake, BOB, "sitout", back=True)  # /stud sitout back:True
    finally:
        await running.stop()
