"""Host approvals on Telegram end to end (issue 22): a join under ``config approve=on`` is a request
message with Approve and Deny buttons in the group; only the host's press answers it, and the requester
is told privately.

Same harness as tests/e2e/test_telegram_e2e.py (tests/support/telegram_harness.py): the real bootstrap and
python-telegram-bot against the fake Bot API, every check read from what the fake received.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import FakeBotAPI
from telegram_harness import ANN, BOB, CAT, GROUP, Served, buttons, open_table, press, say
from telegram_harness import fake as fake  # the fixture

pytestmark = pytest.mark.usefixtures("store_backend")


async def _request(fake: FakeBotAPI, name: str) -> dict[str, Any]:
    """The group's message asking for ``name``'s seat (with its buttons)."""
    found: dict[str, Any] = await fake.wait_for(
        lambda: next((m for (chat, _), m in sorted(fake.messages.items()) if chat == GROUP
                      and f"{name} asks to sit down" in m.get("text", "")), None),
        what=f"{name}'s request in the group")
    return found


@pytest.mark.asyncio
async def test_a_join_request_is_answered_by_the_hosts_button_and_told_privately(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        assert {"rebuy", "approve", "deny"} <= {c["command"] for c in fake.commands}
        await open_table(fake, (ANN, BOB, CAT))
        await say(fake, ANN, "/join")
        await say(fake, ANN, "/config approve=on")
        await say(fake, BOB, "/join 100")
        request = await _request(fake, "Bob")
        assert set(buttons(request)) == {"Approve", "Deny"}
        assert set(buttons(request).values()) <= {"s|approve|#1", "s|deny|#1"}
        assert served.runtime().table.seat_of(str(BOB)) is None
        # Bob (not the host) presses Approve: refused, nothing changes
        answer = await press(fake, BOB, "Approve", message_id=request["message_id"])
        assert "creator or an admin" in answer.get("text", "")
        assert served.runtime().table.seat_of(str(BOB)) is None
        # the host presses it: Bob sits down and is told privately
        answer = await press(fake, ANN, "Approve", message_id=request["message_id"])
        assert "Approved: Bob is told." in answer.get("text", "")
        seat = served.runtime().table.seat_of(str(BOB))
        assert seat is not None and seat.stack == 100
        await fake.wait_for(lambda: any("You are seated" in t for t in fake.private_texts(BOB)),
                            what="Bob told privately")
        # the request's message says so, its buttons gone; a press on an old copy of them: answered already
        closed = fake.messages[(GROUP, request["message_id"])]
        assert closed["text"] == "Bob's request: approved by Ann." and "reply_markup" not in closed
        answer = await fake.answer(fake.press(GROUP, request["message_id"], ANN, data="s|deny|#1"))
        assert "approved already" in answer.get("text", "")
        # Cat asks and is denied by the host's Deny button, told privately
        await say(fake, CAT, "/join")
        request = await _request(fake, "Cat")
        answer = await press(fake, ANN, "Deny", message_id=request["message_id"])
        assert "Denied: Cat is told." in answer.get("text", "")
        await fake.wait_for(lambda: any("denied your request" in t for t in fake.private_texts(CAT)),
                            what="Cat told privately")
        assert served.runtime().table.seat_of(str(CAT)) is None
