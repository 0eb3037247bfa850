"""What a table shows and sends: public lines, the board (text or image), private cards; and the
languages users write in (:class:`Languages`). Output never stops a table: a rendering or messenger
failure is logged and the table goes on."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from bot.core.config import Settings
from bot.core.i18n import Translator, language_of, translator
from bot.core.model import Seat, UserLanguage
from bot.core.ports import BoardView, Clock, Inbound, Messenger, deferring
from bot.store import Store
from bot.store.fence import LeaseLost
from bot.table import timebank
from bot.table.fairness import deck_line
from bot.table.runtime import Runtime, TableHooks
from bot.text import images, render

log = logging.getLogger(__name__)


class Languages:
    """The language of each user: the one they chose with 'lang', else their platform's locale."""

    def __init__(self, *, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.known: dict[tuple[str, str], UserLanguage] = {}
        """(platform, user) -> (language, chosen with 'lang'): for private messages sent later."""

    async def load(self) -> None:
        """Every user's language, as stored."""
        self.known = await self.store.user_langs()

    def translator_for(self, *, platform: str, user: str, locale: str | None = None) -> Translator:
        """The language to write to ``user`` in: the one they chose with 'lang', else their
        platform's locale (``locale``, or the last one seen), else English."""
        known = self.known.get((platform, user))
        if known is not None and known.chosen:
            return translator(known.lang)
        return translator(language_of(locale) or (known.lang if known else self.settings.language))

    def of(self, msg: Inbound) -> Translator:
        """The sender's translator."""
        return self.translator_for(platform=msg.platform, user=msg.user, locale=msg.locale)

    async def remember(self, msg: Inbound) -> Translator:
        """Keep the platform's locale of the sender (for their cards, sent later); their translator."""
        lang = language_of(msg.locale)
        key = (msg.platform, msg.user)
        known = self.known.get(key)
        if lang is not None and (known is None or (not known.chosen and known.lang != lang)):
            async with self.store.atomic() as tx:
                await tx.save_user_lang(platform=msg.platform, user=msg.user, lang=lang, chosen=False)
            self.known[key] = UserLanguage(lang, False)
        return self.of(msg)

    async def choose(self, *, platform: str, user: str, lang: str) -> None:
        """'lang xx': the user's choice, kept over the platform's locale."""
        async with self.store.atomic() as tx:
            await tx.save_user_lang(platform=platform, user=user, lang=lang, chosen=True)
        self.known[(platform, user)] = UserLanguage(lang, True)

    def learn(self, *, platform: str, user: str, lang: str, chosen: bool) -> None:
        """A user's language as another process stored it."""
        self.known[(platform, user)] = UserLanguage(lang, chosen)


class TableOutput:
    """Public lines, boards and private cards of the tables held here."""

    def __init__(self, *, messenger: Messenger, clock: Clock, store: Store, languages: Languages,
                 hooks: Sequence[TableHooks]) -> None:
        self.messenger = messenger
        self.clock = clock
        self.store = store
        self.languages = languages
        self.hooks = hooks
        """The features' hooks (a tournament's lobby is shown instead of its table's board)."""

    def translator_for(self, *, platform: str, user: str, locale: str | None = None) -> Translator:
        """See :meth:`Languages.translator_for`."""
        return self.languages.translator_for(platform=platform, user=user, locale=locale)

    def tr(self, msg: Inbound) -> Translator:
        """The sender's translator."""
        return self.languages.of(msg)

    # ------------------------------------------------------------------ lines

    async def say(self, rt: Runtime, key: str, /, **fields: object) -> None:
        """A public line in the table's language: a catalog key, its fields (a field may be a
        function of the translator, for words such as '5 chips')."""
        await self.say_text(rt, rt.tr(key, **fields))

    async def say_text(self, rt: Runtime, text: str) -> None:
        try:
            await self.messenger.announce(table=rt.address, text=text)
        except Exception:
            log.exception("table %s: announcing failed", rt.table.id)

    # ------------------------------------------------------------------ the board

    async def publish(self, rt: Runtime, *, new: bool = False, urgent: bool = False) -> None:
        """Show the board (``new``: as a new message; ``urgent``: at once, drawn now, before the private cards
        of a deal); a failure is logged and the next change shows it."""
        try:
            await self._publish_board(rt, new=new, urgent=urgent)
        except LeaseLost:
            raise
        except Exception:  # the next change publishes again; the table goes on
            log.exception("table %s: publishing the board failed", rt.table.id)

    async def _publish_board(self, rt: Runtime, *, new: bool, urgent: bool = False) -> None:
        """Show the board. An edit of a hand in progress goes as a drawing to a messenger that holds
        boards back (the outbox shows a table's board every second or so, the table may change many
        times meanwhile): it is drawn once, when it is sent, from the table as it is then. A new
        message and a final board are drawn now."""
        messenger, ref, hand = self.messenger, None if new else rt.table.board_ref, rt.hand
        if ref is not None and deferring(messenger) and not urgent and not (hand is not None and hand.is_over):
            ref = await messenger.defer_board(table=rt.address, draw=lambda: self.board_view(rt), ref=ref)
        else:
            board = replace(self.board_view(rt), urgent=urgent)
            ref = await messenger.publish_board(table=rt.address, board=board, ref=ref)
        if ref != rt.table.board_ref and not rt.closed:
            rt.table.board_ref = ref
            async with self.store.atomic() as tx:
                await tx.save_table(rt.table)

    def board_view(self, rt: Runtime) -> BoardView:
        """The board as the table stands now: a tournament's lobby, or the table and its hand."""
        for hook in self.hooks:
            lobby = hook.lobby(rt)
            if lobby is not None:
                return lobby
        hand = rt.hand
        seconds = bank = None
        now = timebank.clock_now(rt, self.clock.now())  # a paused table's clocks stand still
        if hand is not None and rt.deadline is not None and hand.actor is not None and not hand.is_over:
            seconds = max(0, round(rt.deadline - now))
            seat = rt.seat_in_hand(hand.actor)
            if now >= rt.deadline and timebank.has_bank(rt, seat):  # the turn timer ran out: the bank runs
                bank = max(0, round(timebank.left(rt, seat, now)))
        clocks = rt.clocks
        paused = None if clocks.paused_at is None else rt.tr(
            "timebank.board_paused", name=clocks.paused_by or "?",
            since=time.strftime("%H:%M", time.gmtime(clocks.paused_at)))
        text, buttons = render.board(rt.table, hand, names=rt.names, turn=rt.turn, seconds_left=seconds,
                                     tr=rt.tr, bank_left=bank, paused=paused)
        return BoardView(text=text, buttons=buttons, hand_no=rt.table.hand_no,
                         final=hand is not None and hand.is_over, image=self._board_image(rt), deck=_deck(rt))

    def _board_image(self, rt: Runtime) -> bytes | None:
        """The board as a PNG when the table shows images (never on the console), else None;
        after a showdown, the showdown: every shown hand with its high and low, and who won.

        :func:`~bot.text.images.board_png` is memoised on the board's layout: an unchanged board
        (a clock tick, a 'board' command) costs a dictionary lookup. A drawing failure
        falls back to the text board.
        """
        if rt.table.view != "image" or rt.table.platform == "console":
            return None
        tr = rt.tr
        try:
            hand = rt.hand
            if hand is not None and hand.is_over and len(hand.live_seats) > 1:  # the showdown: hands and winners
                return images.showdown_png(hand, names=rt.names, tr=tr)
            return images.board_png(rt.table, hand, names=rt.names, tr=tr)
        except Exception:
            log.exception("table %s: drawing the board failed; showing it as text", rt.table.id)
            return None

    # ------------------------------------------------------------------ private messages

    def _private_image(self, rt: Runtime, player: int, tr: Translator) -> bytes | None:
        """The player's cards as a PNG (best high and low marked) when the table shows images."""
        if rt.table.view != "image" or rt.table.platform == "console" or rt.hand is None:
            return None
        try:
            return images.private_png(rt.hand, player, tr=tr)
        except Exception:
            log.exception("table %s: drawing the cards of seat %d failed; sending them as text", rt.table.id,
                          player)
            return None

    async def send_cards(self, rt: Runtime, player: int) -> None:
        """The cards of ``player`` (an index in the hand), privately, unless they cannot get private messages."""
        assert rt.hand is not None and rt.setup is not None
        seat = rt.seat_in_hand(player)
        if seat is None or seat.is_bot or seat.unreachable:
            return
        tr = self.translator_for(platform=rt.table.platform, user=seat.user)
        text = render.private_view(rt.hand, player, hand_no=rt.table.hand_no, tr=tr)
        try:
            ok = await self.messenger.send_private(platform=rt.table.platform, user=seat.user, text=text,
                                                   image=self._private_image(rt, player, tr))
        except Exception:  # output must never stop the table: the player can still ask with 'cards'
            log.exception("table %s: sending %s their cards failed", rt.table.id, seat.user)
            return
        if not ok:
            await self.mark_unreachable(rt, seat)

    async def mark_unreachable(self, rt: Runtime, seat: Seat) -> None:
        """The seat's player cannot get private messages (until they open the private chat): stored and said."""
        seat.unreachable = True
        async with self.store.atomic() as tx:
            await tx.save_seat(rt.table.id, seat)
        await self.say(rt, "line.unreachable", name=seat.name)


def _deck(rt: Runtime) -> str:
    """The board's line with the commitment of the hand being played, or else of the next hand once it is
    committed (shown before its deal): short, 'Deck #4 2fe4…d4db · verify after the hand'; '' if none."""
    hand = rt.hand
    if hand is not None and not hand.is_over and rt.fair is not None:
        no, commitment = rt.table.hand_no, rt.fair.commitment
    elif rt.committed is not None and rt.committed == rt.table.hand_no + 1 and rt.commitment:
        no, commitment = rt.committed, rt.commitment
    else:
        return ""
    return deck_line(rt.tr, no=no, commitment=commitment, at_stop=rt.reveal == "stop")
