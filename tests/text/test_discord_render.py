"""Small unit tests of the Discord adapter's pure parts: ids, layout, embeds, chunks, commands, pacing.

The flows themselves are proven end to end in test_discord_e2e.py; the few stand-ins
here (a mocked interaction, a stub client) only feed the rendering and queue logic.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from adapters.discord import messenger as messenger_module
from adapters.discord import render
from adapters.discord.adapter import DiscordAdapter
from adapters.discord.buttons import StudButton
from adapters.discord.commands import MERGED, stud_group
from adapters.discord.messenger import DiscordMessenger, Window, board_view
from bot.core.config import Settings
from bot.core.ports import BoardView, Button, TableAddress
from bot.text.grammar import ACTIONS, COMMANDS, TURN_ACTIONS, parse

BOARD = BoardView(
    text="Hand #3 · fourth street · ante 1, bring-in 2, bets 5/10, timer 60s\nPot 12\n→ Ann 190  🂠 🂠 5♦ 9♣\n"
         "  Bob 188  🂠 🂠 4♣ K♥\nAnn to act (59s): check · bet 5",
    buttons=(Button("Check", "check @3.4"), Button("Bet 5", "bet @3.4"), Button("Join", "join"),
             Button("My cards", "cards")),
    hand_no=3)


@pytest.mark.parametrize("command", [f"{a} @12.7" for a in TURN_ACTIONS] + ["join", "cards"])
def test_custom_ids_carry_the_command_and_its_turn(command: str) -> None:
    custom_id = render.custom_id_of(command)
    assert custom_id.startswith("stud:") and len(custom_id) <= 100
    assert render.command_of(custom_id) == command
    parsed = parse(render.command_of(custom_id) or "")
    assert parsed.name == command.split()[0].removesuffix("-big") and parsed.turn == (command.partition("@")[2] or None)
    assert parsed.args == (("big",) if "-big" in command else ())  # G5's double bet: 'bet-big' is 'bet big'


def test_foreign_or_malformed_ids_are_not_ours() -> None:
    assert render.command_of("other:call@1.2") is None
    assert render.command_of("stud:call@1") is None
    assert render.command_of("stud:CALL") is None
    with pytest.raises(ValueError):
        render.custom_id_of("kick Bob")


def test_an_image_board_embed_shows_the_picture_and_a_short_summary() -> None:
    embed = render.board_embed(BoardView(text=BOARD.text, buttons=BOARD.buttons, hand_no=1, image=b"png"))
    assert embed.image.url == "attachment://board.png" and embed.title == BOARD.text.splitlines()[0]
    assert embed.description is not None and "Ann to act (59s)" in embed.description
    assert "Pot" in embed.description and "→" not in embed.description and "```" not in embed.description
    assert render.board_embed(BOARD).image.url is None  # a text board has no picture


def test_actions_go_first_and_join_and_my_cards_on_their_own_row() -> None:
    rows = render.button_rows(BOARD.buttons)
    assert [(r, b.label) for r, b in rows] == [(0, "Check"), (0, "Bet 5"), (1, "Join"), (1, "My cards")]
    many = (*(Button(f"A{i}", f"call @1.{i}") for i in range(6)), Button("Join", "join"))
    assert [r for r, _ in render.button_rows(many)] == [0, 0, 0, 0, 0, 1, 2]
    assert [r for r, _ in render.button_rows((Button("Join", "join"),))] == [0]


def test_the_board_embed_shows_the_core_text() -> None:
    embed = render.board_embed(BOARD)
    assert embed.title == BOARD.text.splitlines()[0]
    assert embed.description is not None and embed.description.startswith("```\n")
    assert "→ Ann 190  🂠 🂠 5♦ 9♣" in embed.description and "Ann to act (59s)" in embed.description
    assert embed.colour == render.PLAYING
    final = render.board_embed(BoardView(text="Hand #3 · showdown\nx`y", buttons=(), hand_no=3, final=True))
    assert final.colour == render.FINISHED and "`y" not in (final.description or "")
    huge = render.board_embed(BoardView(text="t\n" + "row\n" * 3000, buttons=(), hand_no=1))
    assert len(huge.description or "") <= render.EMBED_TEXT_LIMIT


def test_item6_the_board_embed_carries_the_decks_commitment_as_its_footer() -> None:
    deck = "Deck #3 2fe4…d4db · verify after the hand"
    for image in (None, b"png"):
        embed = render.board_embed(BoardView(text=BOARD.text, buttons=BOARD.buttons, hand_no=3, image=image,
                                             deck=deck))
        assert embed.footer.text == deck
        assert "2fe4" not in (embed.description or "") and "2fe4" not in (embed.title or "")
    assert render.board_embed(BOARD).footer.text is None  # no commitment: no footer


@pytest.mark.asyncio
async def test_the_board_view_is_made_of_dynamic_buttons() -> None:
    view = board_view(BOARD)
    assert view.timeout is None and view.is_persistent()
    items = view.children
    assert all(isinstance(i, StudButton) for i in items)
    assert [i.custom_id for i in items] == ["stud:check@3.4", "stud:bet@3.4", "stud:join", "stud:cards"]  # type: ignore[attr-defined]
    styles = [i.item.style for i in items]  # type: ignore[attr-defined]
    assert styles[0] == discord.ButtonStyle.success and styles[2] == discord.ButtonStyle.secondary
    rows = view.to_components()
    assert len(rows) == 2 and [c["label"] for c in rows[1]["components"]] == ["Join", "My cards"]


@pytest.mark.asyncio
async def test_a_pressed_custom_id_becomes_the_command() -> None:
    match = render.TEMPLATE.fullmatch("stud:raise@4.11")
    assert match is not None
    item = discord.ui.Button(label="Raise to 20", custom_id="stud:raise@4.11")
    button = await StudButton.from_custom_id(SimpleNamespace(), item, match)  # type: ignore[arg-type]
    assert button.command == "raise @4.11" and button.item.label == "Raise to 20"


def test_chunks_keep_every_line_within_the_limit() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    parts = render.chunks(text, limit=100)
    assert all(len(p) <= 100 for p in parts)
    assert "\n".join(parts) == text
    assert render.chunks("x" * 250, limit=100) == ["x" * 100, "x" * 100, "x" * 50]
    assert render.chunks("") == []


def test_command_text_builds_the_grammar() -> None:
    assert render.command_text("join", 200) == "join 200"
    assert render.command_text("join", None) == "join"
    assert render.command_text("config", ante=1, bring_in=None, timer=30) == "config ante=1 timer=30"
    assert parse(render.command_text("config", ante=1, bring_in=2, small=5, big=10, timer=30)).options == {
        "ante": 1, "bring_in": 2, "small": 5, "big": 10, "timer": 30}
    assert render.command_text("kick", "Bob") == "kick Bob"


def test_public_text_shows_names_as_typed() -> None:
    assert render.public_text("**Bo_b** calls 5") == r"\*\*Bo\_b\*\* calls 5"
    assert [len(c) for c in render.chunks("x" * 5000)] == [render.MESSAGE_LIMIT, render.MESSAGE_LIMIT, 1000]


class _Answered:
    """An interaction that keeps what the adapter answered (its edit, and its follow-ups)."""

    id = 1

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.followup = self

    async def edit_original_response(self, **kw: Any) -> None:
        self.calls.append(("edit", kw))

    async def delete_original_response(self) -> None:
        self.calls.append(("delete", {}))

    async def send(self, **kw: Any) -> None:
        self.calls.append(("followup", kw))


def test_a_long_private_answer_goes_on_in_ephemeral_follow_ups() -> None:
    from adapters.discord.adapter import _answer

    story = "\n".join(f"line {i}: Bo_b calls 5" for i in range(200))  # a long hand, told street by street
    answered = _Answered()
    asyncio.run(_answer(answered, story))  # type: ignore[arg-type]
    kinds = [kind for kind, _ in answered.calls]
    assert kinds[0] == "edit" and len(kinds) > 2 and set(kinds[1:]) == {"followup"}
    assert all(kw.get("ephemeral") for kind, kw in answered.calls if kind == "followup")
    texts = [kw["content"] for _, kw in answered.calls]
    assert all(len(t) <= render.MESSAGE_LIMIT for t in texts)
    assert "\n".join(texts) == render.public_text(story)


SUBCOMMANDS = [c for c in COMMANDS if c not in ACTIONS and c not in MERGED and c not in ("approve", "deny")] + ["act"]
"""Every command but the actions has its own subcommand; the actions are ``/stud act``; 'resume', 'back',
'rules', 'settle' and 'paid' are ``/stud pause resume:True``, ``/stud sitout back:True``, ``/stud help
command:rules``, ``/stud ledger action:settle|paid`` (Discord allows 25); a host answers a request (approve,
deny) with the buttons under it."""


def test_the_stud_group_has_a_subcommand_for_every_command() -> None:
    group = stud_group()
    assert [c.name for c in group.commands] == SUBCOMMANDS
    assert len(group.commands) <= 25 and all(len(c.description) <= 100 for c in group.commands)
    options = {c.name: {p.name: p for p in c.parameters} for c in group.commands}  # type: ignore[union-attr]
    assert options["join"]["buy_in"].type is discord.AppCommandOptionType.integer
    assert not options["join"]["buy_in"].required and options["join"]["buy_in"].min_value == 1
    assert set(options["config"]) == {"ante", "bring_in", "small", "big", "timer", "view", "lang", "reveal",
                                      "timebank", "timebank_refill", "approve", "chip_value", "currency", "game",
                                      "mix_hands"}
    assert [c.value for c in options["config"]["game"].choices] == ["stud8", "stud", "razz", "mix"]
    assert options["config"]["mix_hands"].min_value == 1 and options["config"]["mix_hands"].max_value == 50
    assert options["config"]["timebank"].min_value == 0 and options["config"]["timebank"].max_value == 300
    assert set(options["pause"]) == {"resume"} and not options["pause"]["resume"].required
    assert options["rebuy"]["chips"].min_value == 1 and not options["rebuy"]["chips"].required
    assert not options["sitout"]["name"].required  # yourself; a name: the host puts that player out
    assert [c.value for c in options["config"]["reveal"].choices] == ["hand", "stop"]
    assert options["seed"]["text"].max_value == 64 and not options["seed"]["text"].required
    assert options["verify"]["hand"].required and options["verify"]["hand"].min_value == 1
    assert [c.value for c in options["act"]["action"].choices] == list(TURN_ACTIONS)  # every action, one subcommand
    assert [c.value for c in options["lang"]["language"].choices] == ["en", "ru", "pl"]
    assert [c.value for c in options["config"]["view"].choices] == ["image", "text"]
    assert options["config"]["timer"].min_value == 10 and options["config"]["timer"].max_value == 600
    assert options["kick"]["name"].required
    topics = [c for c in COMMANDS
              if c not in ACTIONS and c not in ("approve", "deny") and (c not in MERGED or c == "rules")]
    assert [c.value for c in options["help"]["command"].choices] == topics and len(topics) <= 25
    assert set(options["sitout"]) == {"name", "back"} and not options["sitout"]["back"].required
    assert [c.value for c in options["act"]["action"].choices] == list(TURN_ACTIONS)
    assert options["act"]["action"].required
    assert set(options["export"]) == {"number", "last", "everyone"} and options["export"]["last"].max_value == 100
    assert options["export"]["everyone"].type is discord.AppCommandOptionType.boolean  # 'export ... all' (issue 25)
    assert set(options["hand"]) == {"number", "replay", "last"} and not options["hand"]["number"].required
    assert [c.value for c in options["ledger"]["action"].choices] == ["show", "csv", "settle", "paid"]
    assert set(options["ledger"]) == {"action", "payer", "payee"} and not options["ledger"]["payer"].required


@pytest.mark.asyncio
async def test_the_command_hash_changes_only_with_the_tree(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def adapter(guild: int | None) -> DiscordAdapter:
        settings = Settings(db_path=str(tmp_path / "s.db"), discord_token="t", discord_guild_id=guild)
        return DiscordAdapter(settings=settings, bot=SimpleNamespace())  # type: ignore[arg-type]

    a, b = adapter(5), adapter(5)
    assert await a.commands_hash() == await b.commands_hash()
    assert a.sync_state_path() == tmp_path / "s.db.discord-commands.json"
    a.client.tree.get_commands(guild=a.guild)[0].description = "changed"  # type: ignore[union-attr]
    assert await a.commands_hash() != await b.commands_hash()
    memory = DiscordAdapter(settings=Settings(db_path=":memory:", discord_token="t"), bot=SimpleNamespace())  # type: ignore[arg-type]
    assert memory.sync_state_path() is None and memory.guild is None
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    on_postgres = DiscordAdapter(settings=Settings(db_path=str(tmp_path / "s.db"), database_url="postgresql://db/x",
                                                   discord_token="t"), bot=SimpleNamespace())  # type: ignore[arg-type]
    assert on_postgres.sync_state_path() == tmp_path / "work" / "studbot.discord-commands.json"


@pytest.mark.asyncio
async def test_the_inbound_maps_the_interaction() -> None:
    settings = Settings(db_path=":memory:", discord_token="t")
    adapter = DiscordAdapter(settings=settings, bot=SimpleNamespace())  # type: ignore[arg-type]
    interaction = SimpleNamespace(user=SimpleNamespace(id=42, display_name="Ann Lee"), guild_id=7, channel_id=99,
                                  permissions=discord.Permissions(manage_guild=True), locale=discord.Locale.russian,
                                  guild_locale=discord.Locale.polish)
    inbound = adapter.inbound(interaction, "join 200")  # type: ignore[arg-type]
    assert (inbound.platform, inbound.community, inbound.channel, inbound.user, inbound.name, inbound.text,
            inbound.admin, inbound.locale, inbound.community_locale) == (
        "discord", "7", "99", "42", "Ann Lee", "join 200", True, "ru", "pl")
    interaction.locale, interaction.guild_locale = discord.Locale.american_english, None
    inbound = adapter.inbound(interaction, "x")  # type: ignore[arg-type]
    assert (inbound.locale, inbound.community_locale) == ("en-US", None)
    interaction.permissions = discord.Permissions(send_messages=True)
    assert not adapter.inbound(interaction, "x").admin  # type: ignore[arg-type]


def test_the_window_allows_five_per_window() -> None:
    now = [100.0]
    window = Window(5, 5.0, monotonic=lambda: now[0])
    for _ in range(5):
        assert window.delay() == 0.0
        window.note()
    assert window.delay() == pytest.approx(5.0)
    now[0] += 4.0
    assert window.delay() == pytest.approx(1.0)
    now[0] += 1.0
    assert window.delay() == 0.0


@dataclass
class _Sent:
    kind: str
    text: str


@dataclass
class _StubChannel:
    log: list[_Sent]
    gate: asyncio.Event
    ids: list[int] = field(default_factory=lambda: [500])

    async def send(self, content: str | None = None, *, embed: discord.Embed | None = None, **_: Any) -> Any:
        await self.gate.wait()
        self.ids[0] += 1
        self.log.append(_Sent("post" if embed else "say", (embed.title or "") if embed else content or ""))
        return SimpleNamespace(id=self.ids[0])

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(*, embed: discord.Embed, **_: Any) -> None:
            await self.gate.wait()
            self.log.append(_Sent("edit", embed.title or ""))
        return SimpleNamespace(edit=edit)


@pytest.mark.asyncio
async def test_the_queue_merges_waiting_boards_and_lines_but_never_skips_a_final_board(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messenger_module, "LIMIT", 1000)
    log: list[_Sent] = []
    gate = asyncio.Event()
    channel = _StubChannel(log, gate)
    client = SimpleNamespace(get_partial_messageable=lambda *_a, **_k: channel)
    messenger = DiscordMessenger(client)  # type: ignore[arg-type]
    table = TableAddress(platform="discord", community="1", channel="10")

    def board(title: str, *, final: bool = False) -> BoardView:
        return BoardView(text=title, buttons=(), hand_no=1, final=final)

    await messenger.announce(table=table, text="first")  # the worker takes it and waits at the gate
    await asyncio.sleep(0)
    assert await messenger.publish_board(table=table, board=board("b1"), ref="77") == "77"
    await messenger.announce(table=table, text="a")
    await messenger.announce(table=table, text="b")
    assert await messenger.publish_board(table=table, board=board("b2"), ref="77") == "77"
    assert await messenger.publish_board(table=table, board=board("end", final=True), ref="77") == "77"
    assert await messenger.publish_board(table=table, board=board("next"), ref="77") == "77"
    assert await messenger.publish_board(table=table, board=board("next2"), ref="77") == "77"
    gate.set()
    assert await messenger.flush(timeout=5)
    # newer boards replace waiting ones; the lines of a hand are folded into its board (b2 shows a and b, so
    # the final board does not replace it); a line with no board is posted
    assert [(s.kind, s.text) for s in log] == [
        ("say", "first"), ("edit", "b2"), ("edit", "end"), ("edit", "next2")]
    ref = await messenger.publish_board(table=table, board=board("new"), ref=None)
    assert ref == "502" and log[-1] == _Sent("post", "new")  # a line and this post got ids
    await messenger.close()
    # what comes after close (a last board the bootstrap's outbox drains): not sent, no worker, no error
    sent = len(log)
    assert await messenger.publish_board(table=table, board=board("late"), ref="77") == "77"  # kept, unsent
    await messenger.announce(table=table, text="late line")
    assert await messenger.flush(timeout=1) and len(log) == sent


DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")


def _assert_localized(item: dict[str, Any], *, what: str, names: bool = True) -> None:
    """``item`` has a Russian and a Polish description (and name), each within Discord's rules."""
    descriptions = item.get("description_localizations") or {}
    assert set(descriptions) == {"ru", "pl"}, (what, descriptions)
    for lang, text in descriptions.items():
        assert 1 <= len(text) <= 100 and text != item["description"], (what, lang, text)
    if names:
        localized = item.get("name_localizations") or {}
        assert set(localized) <= {"ru", "pl"}, (what, localized)
        for lang, name in localized.items():
            assert DISCORD_NAME.fullmatch(name) and name == name.lower(), (what, lang, name)


@pytest.mark.asyncio
async def test_the_synced_commands_carry_russian_and_polish_names_and_descriptions() -> None:
    settings = Settings(db_path=":memory:", discord_token="t", discord_guild_id=5)
    adapter = DiscordAdapter(settings=settings, bot=SimpleNamespace())  # type: ignore[arg-type]
    [stud] = await adapter.commands_payload()
    assert stud["name"] == "stud" and not stud.get("name_localizations")
    assert stud["description"] == "Seven Card Stud: Hi-Lo, high (Stud), Razz and the stud mix"
    _assert_localized(stud, what="/stud", names=False)
    subcommands = {o["name"]: o for o in stud["options"]}
    assert list(subcommands) == SUBCOMMANDS  # the English names, as before
    assert subcommands["join"]["description"] == "Take a seat, buying in from your wallet"
    for lang in ("ru", "pl"):
        names = [o.get("name_localizations", {}).get(lang, o["name"]) for o in stud["options"]]
        assert len(set(names)) == len(names), names  # Discord refuses two subcommands of one name
        assert sum(n not in COMMANDS for n in names) >= len(names) // 2, names  # mostly translated
    for name, sub in subcommands.items():
        _assert_localized(sub, what=name)
        for option in sub["options"]:
            _assert_localized(option, what=f"{name}.{option['name']}")
            assert set(option.get("name_localizations", {})) == {"ru", "pl"}, option
            for choice in option.get("choices", []):
                if choice["value"] in ("en", "ru", "pl"):  # 'English', 'Русский', 'Polski' for everyone
                    assert "name_localizations" not in choice, choice
                    continue
                assert set(choice.get("name_localizations", {})) == {"ru", "pl"}, choice
                assert all(1 <= len(n) <= 100 for n in choice["name_localizations"].values())
    buy_in = subcommands["join"]["options"][0]
    assert buy_in["description"] == "Chips to bring from your wallet (default: 20 big bets)"
    assert buy_in["description_localizations"]["ru"].startswith("Сколько фишек")
    assert buy_in["description_localizations"]["pl"].startswith("Ile żetonów")
    view = next(o for o in subcommands["config"]["options"] if o["name"] == "view")
    assert [c["name_localizations"] for c in view["choices"]] == [
        {"ru": "картинка", "pl": "obrazek"}, {"ru": "текст", "pl": "tekst"}]
    # the translations are part of the hash: a new translation syncs again
    assert await adapter.commands_hash() == await adapter.commands_hash()


def test_locales_we_do_not_speak_keep_the_english() -> None:
    from adapters.discord.commands import CatalogTranslator

    async def names() -> tuple[str | None, str | None, str | None]:
        command = stud_group().commands[0]
        context = discord.app_commands.TranslationContext(
            location=discord.app_commands.TranslationContextLocation.command_name, data=command)
        tr = CatalogTranslator()
        string = discord.app_commands.locale_str(command.name)
        return (await tr.translate(string, discord.Locale.german, context),
                await tr.translate(string, discord.Locale.british_english, context),
                await tr.translate(string, discord.Locale.russian, context))

    german, english, russian = asyncio.run(names())
    assert german is None and english is None and russian and russian != "new"
