"""Features on Discord end to end: the board as an image, hand history and export by DM, a sit-and-go.

Same harness as tests/e2e/test_discord_e2e.py (tests/support/discord_harness.py): the real bootstrap and
discord.py against the loopback Discord, every check read from what the fake received.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from discord_harness import (
    ANN,
    BOB,
    CAT,
    action_buttons,
    actor,
    assert_no_public_leak,
    cat_folds_to_a_completion,
    down_cards,
    next_board,
    passive,
    press,
    recorded_bots,
    say,
    start_bot,
    table_of_three,
    token,
    until,
)
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_server import CHANNEL_ID, GUILD_ID, FakeDiscord
from PIL import Image

from bot.text import images
from engine import HandFile
from engine.verify import verify_hand_file

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]


async def test_the_board_is_an_image_until_config_view_text(fake: FakeDiscord, tmp_path: Path, fast: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A new table shows its board as a PNG in the embed (posts and edits upload it); view=text stops that."""
    bots = recorded_bots(monkeypatch)
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        last: str | None = None
        for _ in range(3):
            board = await next_board(fake, last)
            last = token(board)
            await press(fake, actor(board), passive(action_buttons(board)))
        board = await next_board(fake, last)
        boards = [p for p in fake.channel_posts() if p.embeds]
        assert boards[0].kind == "post" and any(p.kind == "edit" for p in boards)
        for post in boards:
            assert post.image is not None, post
            with Image.open(io.BytesIO(post.image)) as img:
                assert img.format == "PNG" and img.width > 0
            assert post.embeds[0]["image"]["url"] == "attachment://board.png"
        assert "to act" in board.text and "Pot " in board.text  # the text summary stays
        assert not any(ln.startswith("→") for ln in board.text.splitlines())  # the seats are in the picture
        uploads = [c for c in fake.channel_calls() if c.files] + [  # as the bot, or through a press's token
            c for c in fake.calls if c.files and c.method == "PATCH" and c.path.endswith("/messages/@original")]
        assert len(uploads) == len(boards) and all(f.filename == "board.png" and f.size > 1000
                                                   for c in uploads for f in c.files)
        # the public image is drawn from a layout without a face-up down card, and it is what is shown
        rt = bots[-1].tables[f"discord:{CHANNEL_ID}"]
        layout = images.board_layout(rt.table, rt.hand, names=rt.names)
        down = [s for seat in layout.seats for s in seat.slots if s.down]
        assert len(down) == 2 * len(layout.seats) and all(not s.face_up and s.card is None for s in down)
        await until(lambda: fake.board().image == images.board_png(rt.table, rt.hand,  # type: ignore[union-attr]
                                                                    names=rt.names), what="the current image")
        # view=text: the board goes back to text, the attachment is dropped
        assert await say(fake, ANN, "config", view="text") == "Done."
        await until(lambda: fake.board().image is None, what="a text board")  # type: ignore[union-attr]
        switched = len(fake.channel_posts())
        board = fake.board()
        assert board is not None and "```" in board.text and any(ln.startswith("→") for ln in board.text.splitlines())
        assert "image" not in board.embeds[0]
        last = token(board)
        await press(fake, actor(board), passive(action_buttons(board)))
        await next_board(fake, last)
        after = [p for p in fake.channel_posts()[switched:] if p.embeds]
        assert after and all(p.image is None and not p.attachments for p in after)
        assert "The board is shown as text now." in fake.lines()
    finally:
        await running.stop()
    assert all(c.status < 400 for c in fake.channel_calls())
    assert_no_public_leak(fake, down_cards(fake))


# ---------------------------------------------------------------------- hand history (issue 12)


async def test_hand_and_export_answer_privately_with_ephemeral_files(fake: FakeDiscord, tmp_path: Path,
                                                                     fast: None) -> None:
    from backends import rows
    from pokerstars_reader import read_file
    from test_export_phh import pokerkit_replay

    from engine import replay_hand

    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        await cat_folds_to_a_completion(fake)
        secret = down_cards(fake)
        [(stored,)] = await rows(tmp_path / "stud.db", "SELECT hand_file FROM hands WHERE hand_no = 1")
        hand = replay_hand(HandFile.from_json(stored))
        story = await say(fake, CAT, "hand", number=1)
        assert story.startswith("Hand #1 — ") and "Cat folds" in story
        assert all(card in story for card in secret[CAT])  # her own, though she folded
        assert "Your down cards" in story and " shows " in story
        # export: the answer carries both files, ephemeral, read back as the bot played the hand
        interaction = await fake.slash(ANN, "export")
        assert (await interaction.answer()).startswith("Hand #1: PokerStars text and PHH")
        assert [(f.filename, ephemeral) for f, ephemeral in interaction.files] == [
            ("stud-hand-1.txt", True), ("stud-hand-1.phh", True), ("stud-hand-1.json", True),
            ("stud-hand-1.html", True)]  # the replayer page beside them (issue 23)
        checked = HandFile.from_json(interaction.files[2][0].data)  # the hand file with its fair record
        assert checked.fair is not None and verify_hand_file(checked).ok  # issue 19, item 5
        [read] = read_file(interaction.files[0][0].data.decode())
        assert read.viewer == "Ann" and read.up["Ann"][:2] == [str(c) for c in hand.cards[0][:2]]
        assert len(read.acts) == len(hand.actions)
        paid: dict[str, int] = {}
        for award in hand.pot_results:
            for seat, chips in award.shares.items():
                paid[hand.names[seat]] = paid.get(hand.names[seat], 0) + chips
        assert read.collected_by() == paid
        stacks, refused, why = pokerkit_replay(interaction.files[1][0].data.decode())
        assert refused is None and stacks == list(hand.stacks), why
        # bad input: answered, no file
        for options, answer in (({"number": 9}, "There is no finished hand #9"), ({"last": 1000}, "at most 100"),
                                ({"number": 1, "last": 2}, "usage: export")):
            bad = await fake.slash(ANN, "export", **options)  # type: ignore[arg-type]
            assert answer in await bad.answer() and not bad.files and bad.ephemeral
        # replay (issue 23): the page attached to the ephemeral answer; bad input answered with the usage
        replay = await fake.slash(ANN, "hand", number=1, replay=True)  # /stud hand replay:True
        assert (await replay.answer()).startswith("Hand #1: open the file in a browser")
        assert [(f.filename, ephemeral) for f, ephemeral in replay.files] == [("stud-hand-1.html", True)]
        assert replay.files[0][0].data.startswith(b"<!DOCTYPE html>")
        bad = await fake.slash(ANN, "hand", last=2, number=1, replay=True)
        assert "usage: replay" in await bad.answer() and not bad.files and bad.ephemeral
        # nothing went to the channel: its only files are the board pictures
        assert {a.filename for p in fake.channel_posts() for a in p.attachments} <= {"board.png"}
    finally:
        await bot.stop()


async def test_a_sit_and_go_registered_by_button_played_to_its_standings(fake: FakeDiscord, tmp_path: Path,
                                                                          fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db", next_hand_delay=0.01)
    try:
        stud = next(c for c in fake.commands[f"guild:{GUILD_ID}"] if c["name"] == "stud")
        spec = next(o for o in stud["options"] if o["name"] == "tourney")
        choices = {o["name"]: [c["value"] for c in o.get("choices", [])] for o in spec["options"]}
        assert choices["pace"] == ["normal", "turbo"] and choices["payout"] == ["winner", "65/35", "50/30/20"]
        assert choices["game"] == ["stud8", "stud", "razz", "mix"]  # G8: a sit-and-go's game, the mix by level
        assert "is open for registration" in await say(fake, ANN, "tourney", seats=3, stack=200, buyin=50,
                                                       levels="hands:1", payout="winner")
        lobby = fake.board()
        assert lobby is not None and "stud:register" in lobby.custom_ids and "registration 0/3" in lobby.text
        for user in (ANN, BOB):
            interaction = await press(fake, user, "stud:register")
            assert "You are registered" in interaction.content, interaction.content
        assert "Already registered" in await say(fake, BOB, "tourney", action="register")
        assert "registered" in await say(fake, ANN, "addbot", name="Robo")
        await until(lambda: "starts: 3 players" in fake.lines(), what="the start")
        await say(fake, ANN, "sitout")
        await say(fake, BOB, "sitout")
        await until(lambda: "final standings" in fake.lines(), timeout=60, what="the final standings")
        lines = fake.lines()
        assert "Level 2 from this hand" in lines and "is out in place 3 of 3" in lines
        assert re.search(r"1\. \S+ — 150 chips", lines), lines[-600:]
        assert "final standings" in await say(fake, CAT, "tourney", action="results")
    finally:
        await bot.stop()
