"""``stats`` and ``top net`` on Discord and Telegram, end to end against the fakes: the private
answer, with the net chips chart as a picture on image tables (Discord: an ephemeral answer with
the PNG attached; Telegram: a photo in the private chat with the stats as its caption)."""

from __future__ import annotations

import io
from pathlib import Path

import discord_harness
import pytest
import telegram_harness
from fakes.discord_server import GUILD_ID, FakeDiscord
from fakes.telegram_server import FakeBotAPI, text_of_call
from PIL import Image
from test_stats import scripted_hands, store_hands

from bot.schema import MIGRATIONS
from bot.store import open_sqlite

pytestmark = pytest.mark.usefixtures("store_backend")

fake_discord = discord_harness.fake
fake_telegram = telegram_harness.fake
fast = discord_harness.fast
PNG = b"\x89PNG\r\n\x1a\n"


async def _seed(db: Path, community: str, ids: dict[str, int]) -> None:
    """The five scripted hands of test_stats, played at this community by these users."""
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        await store_hands(store, scripted_hands(), community=community,
                          users={name: str(uid) for name, uid in ids.items()})
    finally:
        await store.close()


def _is_png(data: bytes) -> None:
    assert data[:8] == PNG
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "PNG" and img.size == (960, 480)


@pytest.mark.asyncio
async def test_discord_answers_stats_with_the_chart_and_top_net(fake_discord: FakeDiscord, tmp_path: Path,
                                                                fast: None) -> None:
    fake = fake_discord
    db = tmp_path / "stud.db"
    e = discord_harness
    await _seed(db, f"discord:{GUILD_ID}", {"ann": e.ANN, "bob": e.BOB, "cat": e.CAT, "dan": e.DAN})
    bot = await e.start_bot(fake, db)
    try:
        mine = await fake.slash(e.BOB, "stats")
        text = await mine.answer()
        assert mine.ephemeral and text.startswith("Stats of Bob here\nHands dealt: 5\n"), text
        assert "Net: +33 chips" in text and "Biggest pot won: 65 chips" in text
        assert [(f.filename, ephemeral) for f, ephemeral in mine.files] == [("stats.png", True)]
        _is_png(mine.files[0][0].data)
        theirs = await fake.slash(e.ANN, "stats", player="bob", locale="ru")
        assert (await theirs.answer()).startswith("Статистика игрока Bob в этом сообществе\nРаздач: 5")
        assert theirs.ephemeral and len(theirs.files) == 1
        _is_png(theirs.files[0][0].data)
        assert await e.say(fake, e.ANN, "stats", player="Zed") == "Nobody called Zed plays here."
        # '/stud stats game:razz': that game's hands only (the seeded hands are Stud Hi-Lo)
        assert await e.say(fake, e.ANN, "stats", player="bob", game="razz") == \
            "Bob has not been dealt a hand of Razz here yet."
        stud = next(c for c in fake.commands[f"guild:{GUILD_ID}"] if c["name"] == "stud")
        spec = next(o for o in stud["options"] if o["name"] == "stats")
        assert [c["value"] for o in spec["options"] if o["name"] == "game" for c in o["choices"]] == \
            ["stud8", "stud", "razz"]
        assert await e.say(fake, e.ANN, "top", net=True) == ("Net winnings, all time:\n1. Bob +33 chips\n"
                                                             "2. Ann +17 chips\n3. Cat -25 chips\n4. Dan -25 chips")
        # a period alone asks for net winnings too; the scripted hands were played long before this week
        assert await e.say(fake, e.ANN, "top", period="week") == "No hands were played here in that period."
        assert (await e.say(fake, e.ANN, "top")).splitlines()[0] == "1. Ann 1000"  # wallets, as before
    finally:
        await bot.stop()


@pytest.mark.asyncio
async def test_telegram_sends_stats_privately_as_a_photo(fake_telegram: FakeBotAPI, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_telegram
    t = telegram_harness
    db = tmp_path / "t.db"
    await _seed(db, f"telegram:{t.GROUP}", {"ann": t.ANN, "bob": t.BOB, "cat": t.CAT, "dan": t.DAN})
    async with t.Served(fake, db, monkeypatch):
        await t.say(fake, t.BOB, "/start", chat=t.BOB)
        await t.say(fake, t.BOB, "/stats")
        photos = await fake.wait_for(lambda: fake.sent("sendPhoto", chat_id=t.BOB), what="the stats photo")
        caption = text_of_call(photos[-1])
        assert caption.startswith("Stats of Bob here\nHands dealt: 5\n") and "Net: +33 chips" in caption
        _is_png(photos[-1].params["photo"])
        assert not [c for c in fake.sent("sendMessage", chat_id=t.GROUP) if "Hands dealt" in text_of_call(c)]
        await t.say(fake, t.BOB, "/stud top net all")
        texts = await fake.wait_for(lambda: [x for x in fake.private_texts(t.BOB) if x.startswith("Net winnings")],
                                    what="top net")
        assert texts[-1].splitlines()[1:3] == ["1. Bob +33 chips", "2. Ann +17 chips"]
        await t.say(fake, t.BOB, "/stud top net month")  # refused with the usage, in the group
        await fake.wait_for(lambda: any("top [net [day|week|all]]" in x for x in fake.group_texts(t.GROUP)),
                            what="the usage")
        names = [c["command"] for c in fake.commands]
        assert "stats" in names
