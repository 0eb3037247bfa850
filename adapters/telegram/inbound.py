"""Telegram updates in: commands in groups and private chats, button presses, deep links.

- One table per group, or per forum topic (``Inbound.channel`` is ``"chat"`` or
  ``"chat:topic"``; ``Inbound.community`` is the chat id). Privacy mode may stay on:
  commands reach bots anyway. Owner commands ask Telegram whether the sender is an admin.
- A button press (callback data ``s|call|12.7``) acts for the presser at the table of
  the chat the button lives in; *My cards* answers privately, or in an alert only the
  presser sees when their private chat is closed.
- A user who never started the bot gets a deep link (``https://t.me/<bot>?start=<payload>``);
  ``/start <payload>`` in the private chat finishes the join there and sends the cards.
  The payload is signed (:func:`.codec.start_payload`): an altered or made-up one is refused;
  and the join seats only a member of the group (getChatMember), whoever passed the link on.
"""

from __future__ import annotations

import logging
from typing import Final

from telegram import Bot as TgBot
from telegram import (
    CallbackQuery,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.telegram.codec import (
    MAX_ALERT,
    channel_of,
    clip,
    decode_callback,
    fit_alert,
    parse_channel,
    parse_payload,
)
from adapters.telegram.commands import OWNER_COMMANDS, grammar_text, split_command
from adapters.telegram.messenger import TelegramMessenger
from bot.app import StudBot
from bot.core.i18n import Translator
from bot.core.ports import Inbound, Reply
from bot.text.grammar import ALIASES

log = logging.getLogger(__name__)

PLATFORM: Final = "telegram"


class TelegramInbound:
    """The handlers of the adapter's Application: an update becomes an :class:`~bot.core.ports.Inbound`."""

    def __init__(self, *, bot: StudBot, messenger: TelegramMessenger, tg: TgBot, keyed: bool = False) -> None:
        self.bot = bot
        self.messenger = messenger
        self.tg = tg
        self.keyed = keyed
        """Updates come through the webhook (claimed in ``platform_updates``, retried by Telegram): each
        command carries its update id (long polling: python-telegram-bot gets each update once)."""

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("telegram update %r failed", update, exc_info=context.error)

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg, user, chat = update.effective_message, update.effective_user, update.effective_chat
        if msg is None or user is None or chat is None or not msg.text:
            return
        if msg.sender_chat is not None:  # on behalf of a chat: no person to seat (777000, GroupAnonymousBot)
            if not msg.is_automatic_forward and split_command(msg.text, self.messenger.username) is not None:
                await self.messenger.post(chat.id, msg.message_thread_id if msg.is_topic_message else None,
                                          self._translator(user)("adapters.as_yourself"), reply_to=msg.message_id)
            return
        if user.is_bot:
            return
        parsed = split_command(msg.text, self.messenger.username)
        if parsed is None:
            return
        name, rest = parsed
        if chat.type == "private":
            await self._private_command(msg, user, name, rest)
            return
        if chat.type not in ("group", "supergroup"):
            return
        text = grammar_text(name, rest)
        if text is None:
            return
        thread = msg.message_thread_id if msg.is_topic_message else None
        channel = channel_of(chat.id, thread)
        head = text.split()[0].lower()
        admin = await self._is_admin(chat.id, user.id) if ALIASES.get(head, head) in OWNER_COMMANDS else False
        reply = await self.bot.handle(self._inbound(chat.id, channel, user, text, admin=admin,
                                                    update_id=self._key(update)))
        await self._reply_in_group(reply, chat.id, thread, msg.message_id, user, channel)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        command = decode_callback(query.data)
        message = query.message
        user = query.from_user
        tr = self._translator(user)
        if command is None or message is None:
            await _answer(query, tr("adapters.button_gone"))
            return
        if message.chat.type not in ("group", "supergroup"):  # forged data on a private message: no table there
            await _answer(query, tr("adapters.group_only"))
            return
        chat_id = message.chat.id
        topic = isinstance(message, Message) and message.is_topic_message
        thread = message.message_thread_id if isinstance(message, Message) and topic else None
        channel = channel_of(chat_id, thread)
        uid = str(user.id)
        if command == "join" and not await self.messenger.probe(uid):
            url = self.messenger.link(channel, join=True)
            if url:  # the join finishes in the private chat, where the cards can reach them
                await _answer(query, url=url)
                return
        if command == "cards":
            reply = await self.bot.handle(self._inbound(chat_id, channel, user, "cards"))
            if not reply.ok:
                await _answer(query, reply.text)
            elif uid not in self.messenger.unreachable and await self.messenger.send_private(
                    platform=PLATFORM, user=uid, text=reply.text):
                await _answer(query, tr("adapters.cards_sent"))
            else:
                await _answer(query, fit_alert(reply.text), show_alert=True)
            return
        admin = await self._is_admin(chat_id, user.id) if command.split()[0] in OWNER_COMMANDS else False
        reply = await self.bot.handle(self._inbound(chat_id, channel, user, command, admin=admin,
                                                    update_id=self._key(update)))
        if reply.code == "turn_over" and isinstance(message, Message):  # maybe an old board's button: retire it
            await self.messenger.retire_old(chat_id, message.message_id, board_ref=await self.bot.answers.board_ref_of(
                platform=PLATFORM, channel=channel))
        url = self.messenger.link(channel, join=False)
        if command == "join" and reply.ok and uid in self.messenger.unreachable and url:
            await _answer(query, url=url)  # seated, but the cards cannot reach them: open the private chat
            return
        await _answer(query, reply.text or None)

    async def _private_command(self, msg: Message, user: User, name: str, rest: str) -> None:
        uid = str(user.id)
        # the private chat is open: the core clears 'unreachable' on their seats and sends their cards
        self.messenger.mark(uid, reachable=True)
        changed = await self.bot.mark_reachable(platform=PLATFORM, user=uid)
        tr = self._translator(user)
        if name != "start":
            text = grammar_text(name, rest)
            head = (text or "").split()[:1]
            if head and ALIASES.get(head[0], head[0]) in ("help", "rules", "lang"):
                reply = await self.bot.handle(self._inbound(user.id, str(user.id), user, text or "help"))
                await self.messenger.post(msg.chat.id, None, reply.text)
            else:
                await self.messenger.post(msg.chat.id, None, tr("adapters.group_only"))
            return
        if not rest:
            await self.messenger.post(msg.chat.id, None, tr("adapters.hello"))
            return
        target = parse_payload(rest, key=self.messenger.link_key)
        if target is None:  # not a link the bot made (altered, or for a table of someone's choosing)
            await self.messenger.post(msg.chat.id, None, tr("adapters.link_invalid"))
            return
        channel, join = target
        chat_id, _ = parse_channel(channel)
        if join and not await self._is_member(chat_id, user.id):
            await self.messenger.post(msg.chat.id, None, tr("adapters.not_a_member"))
            return
        lines = []
        if join:
            reply = await self.bot.handle(self._inbound(chat_id, channel, user, "join"))
            lines.append(tr("adapters.seated") if _already_seated(reply) else reply.text)
        if not changed:
            cards = await self.bot.handle(self._inbound(chat_id, channel, user, "cards"))
            if cards.ok and cards.text:
                lines.append(cards.text)
        lines.append(tr("adapters.cards_here"))
        await self.messenger.post(msg.chat.id, None, "\n".join(lines))

    async def _reply_in_group(self, reply: Reply, chat_id: int, thread: int | None, message_id: int, user: User,
                              channel: str) -> None:
        if not reply.text:
            return
        uid = str(user.id)
        if not reply.private or not reply.ok:
            # public answers, and refusals (usage, rules, turns: never cards) go to the group
            await self.messenger.post(chat_id, thread, reply.text, reply_to=message_id)
            return
        url = self.messenger.link(channel, join=False)
        tr = self._translator(user)
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("adapters.open_private"), url=url)]]) if url else None
        if reply.code == "unreachable":  # seated, but the private chat is closed: say so here, with the way in
            await self.messenger.post(chat_id, thread, tr("adapters.seated_open_private"), reply_to=message_id,
                                      markup=markup)
            return
        if uid not in self.messenger.unreachable and await self.messenger.send_private(
                platform=PLATFORM, user=uid, text=reply.text, image=reply.image) \
                and await self.messenger.send_files(uid, reply.files):
            return
        await self.messenger.post(chat_id, thread, tr("adapters.answer_privately"), reply_to=message_id,
                                  markup=markup)

    def _inbound(self, chat_id: int, channel: str, user: User, text: str, *, admin: bool = False,
                 update_id: int | None = None) -> Inbound:
        """``update_id``: the update a player's action comes in (a typed ``/check``, a press), so that the
        action and the update's done mark commit together (the webhook's retries: bot/platform/updates.py)."""
        return Inbound(platform=PLATFORM, community=str(chat_id), channel=channel, user=str(user.id),
                       name=user.full_name or user.username or str(user.id), text=text, admin=admin,
                       locale=user.language_code, update_id=update_id)

    def _key(self, update: Update) -> int | None:
        return update.update_id if self.keyed else None

    def _translator(self, user: User) -> Translator:
        """The user's language for the adapter's own words (their choice, else Telegram's language_code)."""
        return self.bot.translator_for(platform=PLATFORM, user=str(user.id), locale=user.language_code)


    async def _is_member(self, chat_id: int, user_id: int) -> bool:
        """Whether the user is in the group now (a join link seats only members: anyone may hold one)."""
        try:
            member = await self.tg.get_chat_member(chat_id=chat_id, user_id=user_id)
        except TelegramError as exc:  # no such user there, the bot was removed, or Telegram failed: not seated
            log.info("membership of %s in %s not confirmed: %s", user_id, chat_id, exc)
            return False
        if isinstance(member, ChatMemberRestricted):
            return member.is_member
        return member.status not in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)

    async def _is_admin(self, chat_id: int, user_id: int) -> bool:
        try:
            member = await self.tg.get_chat_member(chat_id=chat_id, user_id=user_id)
        except TelegramError:
            return False
        return member.status in ("administrator", "creator")


async def _answer(query: CallbackQuery, text: str | None = None, *, show_alert: bool = False,
                  url: str | None = None) -> None:
    try:
        await query.answer(text=clip(text, MAX_ALERT) if text else None, show_alert=show_alert or None, url=url)
    except TelegramError as exc:
        log.info("answering a button press failed: %s", exc)


def _already_seated(reply: Reply) -> bool:
    """The join was refused because the user sits at that table already."""
    return reply.code == "already_seated" or (not reply.ok and "already seated" in reply.text)
