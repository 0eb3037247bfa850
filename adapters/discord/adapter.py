"""The Discord adapter: ``/stud`` commands and board buttons in, boards, lines and DMs out.

Thin by design: an interaction becomes an :class:`~bot.core.ports.Inbound` for
:meth:`StudBot.handle` and its :class:`~bot.core.ports.Reply` an ephemeral answer;
the bot's boards, lines and private messages go out through
:class:`~adapters.discord.messenger.DiscordMessenger`. No game rule lives here.

Every interaction is deferred first (within Discord's 3 s, before the bot stores
or renders anything): ephemerally, so an answer that holds cards is never public;
a press of an action button on the board as an *update* of the board (type 6): its
token then edits the board (``edit_original_response``: an interaction endpoint, not
bound to the bot's global 50 requests/s), and so do the deals, house bots and timeouts
that follow while the token lives (issue 24); a refusal goes to the presser alone, as
an ephemeral follow-up. Commands sync to ``DISCORD_GUILD_ID`` if set, else globally, and only
when the command tree changed: its hash is kept in ``<db>.discord-commands.json``
next to the database. ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` point
discord.py at a proxy or at the test's loopback Discord. ``DISCORD_SHARD_COUNT`` and
``DISCORD_SHARD_IDS`` make the client a :class:`StudShardedClient` (see :mod:`.shards`).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import time
from pathlib import Path
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters import logs
from adapters.discord import render
from adapters.discord.buttons import StudButton
from adapters.discord.commands import CatalogTranslator, stud_group
from adapters.discord.messenger import DiscordMessenger
from adapters.discord.shards import IdentifyPacer, ShardPlan, guild_of
from bot.app import StudBot
from bot.core.config import Settings
from bot.core.ports import Attachment, Inbound
from bot.platform.answers import PendingAnswer
from bot.platform.outbox import Coalescer
from bot.text.grammar import ALIASES, parse

log = logging.getLogger(__name__)

PLATFORM = "discord"
INTERACTION_LIFETIME = 15 * 60 - 30
"""Seconds an interaction's token lets the bot answer it (Discord: 15 minutes; a margin for clocks)."""
ORIGINAL = "/webhooks/{application_id}/{token}/messages/@original"
"""An interaction's first answer (the deferred 'thinking' message), by its token."""
LOADING = 1 << 7
"""The flag of an original response that is still the deferred 'thinking' message (not answered yet)."""
EPHEMERAL = 1 << 6
FOLLOWUP = "/webhooks/{application_id}/{token}"
"""A follow-up message of an interaction, by its token."""
INTENTS = discord.Intents.none()
INTENTS.guilds = True


class StudClient(discord.Client):
    """A discord.py client that knows its adapter (buttons and commands call back into it)."""

    def __init__(self, adapter: DiscordAdapter, **shards: Any) -> None:
        super().__init__(intents=INTENTS, allowed_mentions=discord.AllowedMentions.none(), **shards)
        self.adapter = adapter
        self.tree: app_commands.CommandTree[StudClient] = app_commands.CommandTree(self)
        guild = adapter.guild
        self.tree.add_command(stud_group(), guild=guild)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(StudButton)
        await self.tree.set_translator(self.adapter.translator)

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A press on one of our buttons that discord.py's dynamic items will not dispatch.

        discord.py hands a press to a dynamic item only if the message it carries still
        shows that button; a stale press (the board was edited meanwhile) would go
        unanswered. Answer those here (the bot refuses the stale turn).
        """
        if interaction.type is not discord.InteractionType.component or not isinstance(interaction.data, dict):
            return
        custom_id = interaction.data.get("custom_id")
        command = render.command_of(custom_id) if isinstance(custom_id, str) else None
        if command is None:  # not a button we make ('garbage', 'stud:', 100 characters): answer it as stale
            await self.adapter.answer_stale(interaction)
            return
        message = interaction.message
        if message is not None and custom_id in render.component_custom_ids(list(message.components)):
            return  # StudButton handles it
        await self.adapter.handle_interaction(interaction, command)


class StudShardedClient(StudClient, discord.AutoShardedClient):
    """The same client over some shards of the gateway (``DISCORD_SHARD_COUNT``, ``DISCORD_SHARD_IDS``)."""

    def __init__(self, adapter: DiscordAdapter, plan: ShardPlan) -> None:
        super().__init__(adapter, shard_count=plan.count, shard_ids=list(plan.ids))
        self.pacer = IdentifyPacer()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await self.pacer.wait(shard_id or 0)


class DiscordAdapter:
    """The :class:`adapters.run.PlatformAdapter` for Discord."""

    platform = PLATFORM
    rate_interval = 2.5
    """One flush is one public message and one board edit: two flushes per 5 s stay under 5 per 5 s."""

    def __init__(self, *, settings: Settings, bot: StudBot) -> None:
        if not settings.discord_token:
            raise ValueError("DISCORD_TOKEN is not set")
        logs.hide(settings.discord_token, "DISCORD_TOKEN")
        self.settings = settings
        self.bot = bot
        self.outbox: Coalescer | None = None
        self.guild = discord.Object(id=settings.discord_guild_id) if settings.discord_guild_id else None
        self.translator = CatalogTranslator()
        """The commands' names and descriptions in Russian and Polish (set on the tree at login)."""
        _point_at(settings)
        self.shards = ShardPlan.of(count=settings.discord_shard_count, ids=settings.discord_shard_ids)
        self.client = StudClient(self) if self.shards is None else StudShardedClient(self, self.shards)
        self.messenger = DiscordMessenger(self.client)
        self._inflight: set[asyncio.Task[Any]] = set()
        self._stopping = False

    # ------------------------------------------------------------------ lifecycle

    async def connect(self) -> None:
        """Log in (REST), find the gateway, and sync the commands if they changed."""
        assert self.settings.discord_token is not None
        try:
            await self._log_in(self.settings.discord_token)
        except BaseException:
            await self.client.close()  # its HTTP session, opened by login: the bootstrap stops here
            raise

    async def _log_in(self, token: str) -> None:
        await self.client.login(token)
        if self.shards is not None or (self.settings.discord_api_base and not self.settings.discord_gateway_url):
            recommended, url, limits = await self.client.http.get_bot_gateway()
            if not self.settings.discord_gateway_url:
                DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
            if isinstance(self.client, StudShardedClient) and self.shards is not None:
                self.client.pacer.max_concurrency = max(1, int(limits.get("max_concurrency", 1)))
                log.info("discord: %s; Discord recommends %d shards", self.shards.describe(), recommended)
                if recommended > self.shards.count:
                    log.warning("discord: DISCORD_SHARD_COUNT=%d is below the %d shards Discord recommends",
                                self.shards.count, recommended)
        await self.sync_commands()

    async def run(self, stop: asyncio.Event) -> None:
        """Receive interactions until ``stop``; then finish what is in flight and close the client."""
        await self.answer_cut_off()
        gateway = asyncio.create_task(self.client.connect(reconnect=True), name="discord-gateway")
        stopped = asyncio.create_task(stop.wait(), name="discord-stop")
        try:
            await asyncio.wait({gateway, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            self._stopping = True
            if not gateway.done():
                gateway.cancel()
            await asyncio.gather(gateway, return_exceptions=True)
            if self._inflight:
                await asyncio.wait(set(self._inflight), timeout=10)
            await self._drain_front()
            await self.messenger.flush(timeout=10)
            await self.messenger.close()
            await self.client.close()
        failure = None if stop.is_set() or gateway.cancelled() else gateway.exception()
        if failure is not None:
            raise failure  # the gateway gave up (bad token, missing intents): let the bootstrap fail loudly

    async def _drain_front(self) -> None:
        """Send what the bootstrap's Coalescer still holds for us, before the client closes."""
        if self.outbox is None:
            return
        try:
            await asyncio.wait_for(self.outbox.drain(), timeout=10)
        except Exception:
            log.exception("sending the last boards and lines failed")

    # ------------------------------------------------------------------ commands

    def sync_state_path(self) -> Path | None:
        """Where the hash of the commands last synced is kept: beside the SQLite file, or in the current
        directory (the process's working directory, as for a Procfile) when the database is PostgreSQL."""
        if self.settings.database_url:
            return Path.cwd() / "studbot.discord-commands.json"
        db = self.settings.db_path
        if not db or db == ":memory:" or db.startswith("file:"):
            return None
        return Path(db).with_name(Path(db).name + ".discord-commands.json")

    async def commands_payload(self) -> list[dict[str, Any]]:
        """The commands as they are synced: with their Russian and Polish names and descriptions."""
        tree = self.client.tree
        return [await c.get_translated_payload(tree, self.translator) for c in tree.get_commands(guild=self.guild)]

    async def commands_hash(self) -> str:
        payload = await self.commands_payload()
        blob = json.dumps({"app": self.client.application_id, "commands": payload}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    async def sync_commands(self) -> bool:
        """Sync ``/stud`` (to the guild, or globally) unless this exact tree was synced before."""
        scope = f"guild:{self.guild.id}" if self.guild else "global"
        digest = await self.commands_hash()
        path = self.sync_state_path()
        state: dict[str, str] = {}
        if path is not None and path.is_file():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                state = {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                state = {}
        if state.get(scope) == digest:
            log.info("discord commands unchanged (%s); not syncing", scope)
            return False
        try:
            await self.client.tree.sync(guild=self.guild)
        except discord.HTTPException:
            log.exception("syncing the discord commands (%s) failed; the old ones stay", scope)
            return False
        log.info("discord commands synced (%s)", scope)
        state[scope] = digest
        if path is not None:
            try:
                path.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
            except OSError:
                log.warning("cannot write %s: commands will sync again on the next start", path)
        return True

    # ------------------------------------------------------------------ interactions

    def inbound(self, interaction: discord.Interaction[discord.Client], text: str) -> Inbound:
        user = interaction.user
        permissions = interaction.permissions
        channel = interaction.channel_id if interaction.channel_id is not None else 0
        community = str(interaction.guild_id) if interaction.guild_id is not None else f"dm-{channel}"
        return Inbound(platform=PLATFORM, community=community, channel=str(channel), user=str(user.id),
                       name=user.display_name, text=text,
                       admin=bool(permissions.manage_guild or permissions.administrator),
                       locale=_tag(interaction.locale), community_locale=_tag(interaction.guild_locale))

    async def answer_stale(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A press on a button that is none of ours: 'this button is no longer in use' (ephemeral, in the
        presser's language), so that Discord does not show "This interaction failed"."""
        tr = self.bot.translator_for(platform=PLATFORM, user=str(interaction.user.id), locale=_tag(interaction.locale))
        try:
            await interaction.response.send_message(render.reply_text(tr("adapters.button_gone")), ephemeral=True)
        except (discord.HTTPException, discord.InteractionResponded) as exc:
            log.warning("interaction %s could not be answered (%s)", interaction.id, exc)

    async def handle_interaction(self, interaction: discord.Interaction[discord.Client], text: str) -> None:
        """Defer (ephemeral), run the command through the bot, answer (ephemeral) or remove the answer.

        Between the defer and the answer the interaction is kept in the database: if a crash
        cuts the answer off, :meth:`answer_cut_off` gives it after the restart.
        """
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
        update = _board_press(interaction, text)
        try:
            try:
                if update:  # the board's own update: its token edits the board from now on
                    await interaction.response.defer()
                    message = interaction.message
                    assert message is not None and interaction.channel_id is not None
                    self.messenger.pressed(interaction.channel_id, message.id, interaction)
                else:
                    await interaction.response.defer(ephemeral=True, thinking=True)
            except (discord.HTTPException, discord.InteractionResponded) as exc:
                log.warning("interaction %s could not be acknowledged (%s); ignored", interaction.id, exc)
                return
            if self._stopping:
                tr = self.bot.translator_for(platform=PLATFORM, user=str(interaction.user.id),
                                             locale=_tag(interaction.locale))
                await _answer(interaction, tr("adapters.restarting"), update=update)
                return
            if interaction.guild_id is None and not _answered_in_dms(text):  # a DM holds no table
                tr = self.bot.translator_for(platform=PLATFORM, user=str(interaction.user.id),
                                             locale=_tag(interaction.locale))
                await _answer(interaction, tr("adapters.server_only"), update=update)
                return
            inbound = self.inbound(interaction, text)
            kept = await self._keep(interaction, inbound.channel, text)
            reply = await self.bot.handle(inbound)
            await _answer(interaction, reply.text, reply.files if reply.private else (), image=reply.image,
                          update=update)
            if kept:
                await self._drop(str(interaction.id))
        finally:
            if task is not None:
                self._inflight.discard(task)

    async def _keep(self, interaction: discord.Interaction[discord.Client], channel: str, text: str) -> bool:
        request = PendingAnswer(platform=PLATFORM, id=str(interaction.id), token=interaction.token,
                                         user=str(interaction.user.id), locale=_tag(interaction.locale),
                                         channel=channel, command=text, received_at=time.time())
        try:
            await self.bot.answers.remember(request)
        except Exception:  # the answer still comes; only a crash before it would leave it unsaid
            log.exception("keeping interaction %s failed", interaction.id)
            return False
        return True

    async def _drop(self, interaction_id: str) -> None:
        try:
            await self.bot.answers.forget(platform=PLATFORM, id=interaction_id)
        except Exception:
            log.exception("forgetting interaction %s failed", interaction_id)

    async def answer_cut_off(self) -> None:
        """Answer the interactions a crash left unanswered, while their tokens live (15 minutes).

        A press on an action button carries its turn: if the database has that action by
        that user, it was taken (the 'thinking' answer goes, as after any accepted press);
        if not, the user is told to press again. Other commands cannot be told apart so
        surely: the user is told to look at the table.
        """
        try:
            pending = [r for r in await self.bot.answers.pending(PLATFORM) if await self._mine(r)]
        except Exception:
            log.exception("reading the interactions in flight failed")
            return
        for request in pending:
            try:
                if time.time() - request.received_at < INTERACTION_LIFETIME:
                    await self._answer_late(request)
            except Exception:
                log.exception("answering interaction %s after the restart failed", request.id)
            await self._drop(request.id)

    async def _mine(self, request: PendingAnswer) -> bool:
        """Whether this process answers a cut-off interaction: its guild's shard runs here. With shards
        split between processes, the others' interactions in flight are theirs; one whose server is not
        known (no table was opened in its channel, a DM) is answered by the process of shard 0."""
        if self.shards is None:
            return True
        community = await self.bot.answers.channel_community(platform=PLATFORM, channel=request.channel)
        return self.shards.runs(guild_of(community))

    async def _answer_late(self, request: PendingAnswer) -> None:
        """Only an answer still 'thinking' is touched: the crash may have come after the answer was
        given (edited, or deleted for a press) and before the interaction was forgotten."""
        tr = self.bot.translator_for(platform=PLATFORM, user=request.user, locale=request.locale)
        try:
            parsed = parse(request.command)
            turn = parsed.turn if parsed.is_action else None  # a settle-up's 'paid @12.3' is no hand's turn
        except ValueError:
            turn = None
        original: dict[str, Any] = {"application_id": self.client.application_id, "token": request.token}
        try:
            message = await self.client.http.request(Route("GET", ORIGINAL, **original))
            flags = int(message.get("flags") or 0)
            if turn is not None and not flags & EPHEMERAL:  # a press answered as the board's update: no answer
                if not await self.bot.answers.action_taken(platform=PLATFORM, channel=request.channel, turn=turn,
                                                           user=request.user):
                    await self.client.http.request(Route("POST", FOLLOWUP, **original), json={
                        "content": render.reply_text(tr("adapters.restarted_not_taken")), "flags": EPHEMERAL})
                return
            if not flags & LOADING:
                log.info("interaction %s was answered before the restart; its answer stays", request.id)
                return
            if turn is not None and await self.bot.answers.action_taken(platform=PLATFORM,
                                                                 channel=request.channel, turn=turn,
                                                                 user=request.user):
                await self.client.http.request(Route("DELETE", ORIGINAL, **original))  # taken: as after any press
                return
            text = tr("adapters.restarted_unknown") if turn is None else tr("adapters.restarted_not_taken")
            await self.client.http.request(Route("PATCH", ORIGINAL, **original),
                                           json={"content": render.reply_text(text)})
        except discord.NotFound as exc:  # deleted before the restart (or dismissed by the user): nothing to do
            log.info("interaction %s has no answer left to settle (%s)", request.id, exc.code)


def _board_press(interaction: discord.Interaction[discord.Client], text: str) -> bool:
    """A press of one of the board's action buttons (a command with its turn): answered as an update of the board."""
    return (interaction.type is discord.InteractionType.component and interaction.message is not None
            and interaction.channel_id is not None and interaction.guild_id is not None and "@" in text)


async def _answer(interaction: discord.Interaction[discord.Client], text: str,
                  files: tuple[Attachment, ...] = (), *, image: bytes | None = None, update: bool = False) -> None:
    """Edit the deferred (ephemeral) answer: the text, and the files attached to it (only the asker sees them),
    or ``image`` (a PNG, such as the stats chart) shown with it. An answer longer than one message (a hand told
    street by street) goes on in ephemeral follow-ups. A press deferred as the board's ``update`` has no answer of
    its own to edit: what there is to say comes as ephemeral follow-ups (an accepted press says nothing)."""
    attached = [discord.File(io.BytesIO(f.data), filename=f.name) for f in files]
    if image is not None:
        attached.append(discord.File(io.BytesIO(image), filename=render.REPLY_FILE))
    try:
        first, *rest = render.chunks(render.public_text(text)) or [""]
        if update:
            if text.strip() or attached:
                await interaction.followup.send(content=first, files=attached, ephemeral=True)
        elif attached:
            await interaction.edit_original_response(content=first, attachments=attached)
        elif text.strip():
            await interaction.edit_original_response(content=first)
        else:
            await interaction.delete_original_response()
        for chunk in rest:
            await interaction.followup.send(content=chunk, ephemeral=True)
    except discord.NotFound as exc:  # the user dismissed the 'thinking' message: nothing left to answer
        log.info("interaction %s has no answer to edit (%s)", interaction.id, exc.code)
    except discord.HTTPException:
        log.exception("answering interaction %s failed", interaction.id)


def _answered_in_dms(text: str) -> bool:
    """Commands that need no table (help, rules, lang): the only ones a DM answers."""
    head = text.split()[:1]
    return bool(head) and ALIASES.get(head[0], head[0]) in ("help", "rules", "lang")


def _tag(locale: discord.Locale | None) -> str | None:
    """'ru', 'pl', 'en-US' of a Discord locale."""
    return locale.value if isinstance(locale, discord.Locale) else None


def _point_at(settings: Settings) -> None:
    """REST base and gateway from the settings (a proxy, or a loopback Discord in tests)."""
    if settings.discord_api_base:
        Route.BASE = settings.discord_api_base.rstrip("/")
    if settings.discord_gateway_url:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)
