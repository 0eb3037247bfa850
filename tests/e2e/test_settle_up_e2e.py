"""The settle-up's buttons end to end: on Discord (tests/support/discord_harness.py) and on Telegram
(tests/support/telegram_harness.py), a hand is played, the host settles, the settle-up is a message of its own
with a button per open payment; a third person's press is refused, the payee's marks it and the message is
edited to show it paid, its button gone; a second press is answered as stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord_harness import ANN, BOB, CAT, NAMES, cat_folds_to_a_completion, say, start_bot, table_of_three, until
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_server import CHANNEL_ID, FakeDiscord, Posted

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]


def _settle_up(fake: FakeDiscord) -> Posted | None:
    """The latest version of the settle-up message (an embed titled with the session's final ledger)."""
    found = [p for p in fake.channel_posts(CHANNEL_ID) if p.embeds and "final ledger" in
             str(p.embeds[0].get("title", ""))]
    if not found:
        return None
    return [p for p in fake.channel_posts(CHANNEL_ID) if p.message_id == found[-1].message_id][-1]


def _text(post: Posted) -> str:
    return str(post.embeds[0].get("title", "")) + "\n" + str(post.embeds[0].get("description", ""))


async def test_discord_settle_up_buttons_mark_payments_by_payer_or_payee_only(fake: FakeDiscord, tmp_path: Path,
                                                                           fast: None) -> None:
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        await cat_folds_to_a_completion(fake)
        assert "Session 1 settled" in await say(fake, ANN, "ledger", action="settle")
        await until(lambda: _settle_up(fake) is not None, what="the settle-up message")
        posted = _settle_up(fake)
        assert posted is not None and posted.kind == "post"
        text = _text(posted)
        m = re.search(r"• (\w+) pays (\w+) (\d+) chips?", text)
        assert m is not None, text
        payer, payee = (next(u for u, n in NAMES.items() if n == m.group(i)) for i in (1, 2))
        button = next(cid for cid in posted.custom_ids if cid.startswith("stud:paid@"))  # the first line's
        third = next(u for u in (ANN, BOB, CAT) if u not in (payer, payee))
        refused = await fake.press(third, button, message_id=posted.message_id)
        assert "Only" in await refused.answer()
        marked = await fake.press(payee, button, message_id=posted.message_id)
        assert "Marked paid" in await marked.answer()

        def edited() -> bool:
            now = _settle_up(fake)
            return now is not None and now.kind == "edit" and "(paid)" in _text(now)

        await until(edited, what="the settle-up edited")
        now = _settle_up(fake)
        assert now is not None and button not in now.custom_ids
        again = await fake.press(payer, button, version=posted)  # the button as it was: stale now
        assert "marked paid already" in await again.answer()
        shown = await say(fake, payer, "ledger")
        assert "Session 2 ledger" in shown
    finally:
        await running.stop()
