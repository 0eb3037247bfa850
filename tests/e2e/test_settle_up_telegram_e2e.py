"""The settle-up's buttons on Telegram end to end (tests/support/telegram_harness.py): a hand is played with
buttons, the host settles, the settle-up is a message of its own (monospace) with a button per open payment;
a third person's press is refused, the payee's marks it and the message is edited to show it paid, its
button gone; a second press of the old button is answered as stale."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import FakeBotAPI, text_of
from telegram_harness import ANN, BOB, CAT, GROUP, NAMES, Served, buttons, open_table, play_out, say, start_and_deal
from telegram_harness import fake as fake  # the fixture

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]


def _settle_up(fake: FakeBotAPI) -> dict[str, Any] | None:
    found = [m for (c, _), m in sorted(fake.messages.items()) if c == GROUP and "final ledger" in text_of(m)]
    return found[-1] if found else None


async def test_telegram_settle_up_buttons_mark_payments_by_payer_or_payee_only(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch):
        await open_table(fake, (ANN, BOB, CAT))
        for uid in (ANN, BOB, CAT):
            await say(fake, uid, "/stud join")
        await start_and_deal(fake)
        await play_out(fake)
        await say(fake, ANN, "/settle")
        settle_up = await fake.wait_for(lambda: _settle_up(fake), what="the settle-up message")
        text = text_of(settle_up)
        m = re.search(r"• (\w+) pays (\w+) (\d+) chips?", text)
        assert m is not None, text
        payer, payee = (next(u for u, n in NAMES.items() if n == m.group(i)) for i in (1, 2))
        label, data = next((lb, d) for lb, d in buttons(settle_up).items() if d.startswith("s|paid|"))
        assert m.group(1) in label and m.group(2) in label
        third = next(u for u in (ANN, BOB, CAT) if u not in (payer, payee))
        mid = settle_up["message_id"]
        refused = await fake.answer(fake.press(GROUP, mid, third, data=data))
        assert "Only" in refused.get("text", ""), refused
        marked = await fake.answer(fake.press(GROUP, mid, payee, data=data))
        assert "Marked paid" in marked.get("text", ""), marked

        def edited() -> dict[str, Any] | None:
            now = _settle_up(fake)
            return now if now is not None and "(paid)" in text_of(now) else None

        now = await fake.wait_for(edited, what="the settle-up edited")
        assert now["message_id"] == mid and data not in buttons(now).values()
        again = await fake.answer(fake.press(GROUP, mid, payer, data=data))  # the old button, pressed again
        assert "marked paid already" in again.get("text", ""), again
