"""The night's ledger and its settle-up at a cash table: ``ledger [csv]``, ``settle``, ``paid PAYER PAYEE``, and
the settle-up a ``stop`` posts (the session and its storage: :mod:`bot.table.session`).

``ledger`` and ``paid`` are answered without the table's lock (they read, or mark one payment): they work
after a ``stop`` too, on the channel's last table. ``settle`` is the host's (the creator or an admin), between
hands. The bot never moves money: a payment is marked by its payer or its payee, and the settle-up is said
again with what is still open.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.core.errors import Refusal
from bot.core.i18n import Translator, translator
from bot.core.ports import Attachment, Button, Clock, Inbound, Reply, TableAddress
from bot.platform.outbox import edit_notice, post_notice
from bot.store import Store, Tx
from bot.table.output import TableOutput
from bot.table.routes import Route
from bot.table.runtime import Runtime, TableHooks, require_owner
from bot.table.session import (
    HOUSE_BOTS,
    Due,
    Ledger,
    Money,
    SettleUp,
    day_time,
    load_settle_up,
    mark_paid,
    read_ledger,
    read_money,
    save_notice,
    settle_session,
    settle_ups_open,
)
from bot.text import render
from bot.text.grammar import Command
from bot.text.images.ledger import ledger_png

log = logging.getLogger(__name__)

CSV_COLUMNS = ("player", "player id", "session start", "session end", "buy-ins", "buy-out", "stack", "net")
"""The columns of ``ledger csv``, as PokerNow's ledger names them."""


class Settling(TableHooks):
    """``ledger``, ``settle`` and ``paid``; and, as a table hook, the settle-up of a cash table that stops."""

    def __init__(self, *, store: Store, output: TableOutput, clock: Clock) -> None:
        self.store = store
        self.output = output
        self.clock = clock

    def routes(self) -> Mapping[str, Route]:
        return {"ledger": Route(free=self.ledger, at_channel=True),
                "settle": Route(at_table=self.settle, at_tournament=self.not_here),
                "paid": Route(free=self.paid, at_channel=True)}

    # ------------------------------------------------------------------ the hook

    async def closing(self, rt: Runtime, tx: Tx, *, now: float) -> Callable[[], Awaitable[None]] | None:
        """A cash table stops: its session is settled in the close's transaction, and posted once committed."""
        table = rt.table
        if table.tournament is not None:
            return None
        ledger = await read_ledger(tx.all, table_id=table.id, community=table.community, now=now)
        if not ledger.lines:
            return None
        settled = await settle_session(tx, table_id=table.id, community=table.community, ended_by="stop", now=now)

        async def post() -> None:
            await self.post_settle_up(rt.address, settled, rt.tr)
        return post

    # ------------------------------------------------------------------ the commands

    async def not_here(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        raise Refusal("session.refuse_tourney")

    async def settle(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """'settle': the session's final ledger and the payments that settle it; a new session begins."""
        require_owner(rt, msg)
        if rt.playing:
            raise Refusal("session.refuse_playing")
        table = rt.table
        now = self.clock.now()
        async with self.store.atomic() as tx:
            ledger = await read_ledger(tx.all, table_id=table.id, community=table.community, now=now)
            if not ledger.lines:
                raise Refusal("session.refuse_empty")
            settled = await settle_session(tx, table_id=table.id, community=table.community, ended_by="settle",
                                           now=now)
        await self.post_settle_up(rt.address, settled, rt.tr)
        return Reply(self.output.tr(msg)("session.reply_settled", no=settled.ledger.no), private=True)

    async def post_settle_up(self, address: TableAddress, settled: SettleUp, tr: Translator) -> None:
        """The settle-up in the channel, with a button for each payment still open; its message kept, to edit."""
        try:
            ref = await post_notice(self.output.messenger, table=address, text=settle_up_text(settled, tr),
                                    buttons=buttons(settled, tr))
        except Exception:  # stored: 'ledger' shows it
            log.exception("table %s: posting the settle-up failed", settled.ledger.table_id)
            return
        if ref is not None:
            async with self.store.atomic() as tx:
                await save_notice(tx, session_id=settled.id, ref=ref)

    async def ledger(self, msg: Inbound, command: Command) -> Reply:
        """'ledger': the running session (or the last settled one, after a stop) and the payments still open;
        'ledger csv': the same as a file."""
        tr = self.output.tr(msg)
        table = await self._channel_table(msg)
        now = self.clock.now()
        if table.open:
            ledger: Ledger = await read_ledger(self.store.fetch, table_id=table.id, community=table.community,
                                               now=now)
            money = await read_money(self.store.fetch, table_id=table.id)
        else:
            last = await self._last_settle_up(table.id)
            if last is None:
                raise Refusal("session.refuse_nothing")
            ledger, money = last.ledger, last.money
        if command.args and command.args[0] == "csv":
            name = f"ledger-{msg.platform}-{table.id}-{ledger.no}.csv"
            return Reply(tr("session.reply_csv", no=ledger.no), private=True,
                         files=(Attachment(name=name, data=ledger_csv(ledger, tr).encode(), mime="text/csv"),))
        parts = [ledger_text(ledger, tr, money=money)]
        dues: list[str] = []
        for settle_up_id in await settle_ups_open(self.store.fetch, await self._channel_tables(msg)):
            settled = await load_settle_up(self.store.fetch, settle_up_id)
            if settled is not None and (settled.ledger.no != ledger.no or settled.ledger.table_id != ledger.table_id):
                dues.append(dues_text(settled, tr))
        picture = None
        if table.image and msg.platform != "console" and ledger.lines:  # an image table: the ledger as a picture
            try:
                picture = ledger_picture(ledger, tr, money=money,
                                         notes=[ln for text in dues for ln in text.splitlines()])
            except Exception:
                log.exception("table %s: drawing the ledger failed; showing it as text", table.id)
        return Reply("\n\n".join(parts + dues), private=True, image=picture)

    async def paid(self, msg: Inbound, command: Command) -> Reply:
        """'paid PAYER PAYEE' (or a settle-up's button, 'paid @settle-up.payment'): the payer or the payee marks
        one payment done; the settle-up is said again with what is still open."""
        tr = self.output.tr(msg)
        ids = await settle_ups_open(self.store.fetch, await self._channel_tables(msg))
        if command.turn is not None:
            settle_up_id, _, seq = command.turn.partition(".")
            settled = await load_settle_up(self.store.fetch, int(settle_up_id))
            if settled is None or settled.ledger.table_id not in await self._channel_tables(msg):
                raise Refusal("session.refuse_no_due", code="stale")
            due = next((d for d in settled.dues if d.seq == int(seq)), None)
            if due is None:
                raise Refusal("session.refuse_no_due", code="stale")
        else:
            found = await self._find_due(ids, str(command.args[0]), msg)
            if found is None:
                raise Refusal("session.refuse_no_due_named", names=str(command.args[0]))
            settled, due = found
        names = settled.ledger.name_of
        if due.paid:
            raise Refusal("session.refuse_paid_already", payer=names(due.payer), payee=names(due.payee),
                          code="stale")
        if msg.user not in (due.payer, due.payee):
            raise Refusal("session.refuse_not_party", payer=names(due.payer), payee=names(due.payee))
        async with self.store.atomic() as tx:
            marked = await mark_paid(tx, session_id=settled.id, seq=due.seq, by=msg.user, now=self.clock.now())
        if not marked:
            raise Refusal("session.refuse_paid_already", payer=names(due.payer), payee=names(due.payee),
                          code="stale")
        now_settled = await load_settle_up(self.store.fetch, settled.id)
        assert now_settled is not None
        rows = await self.store.fetch("SELECT platform, community, channel, lang FROM tables WHERE id = ?",
                                      (settled.ledger.table_id,))
        if rows:
            r = rows[0]
            table_tr = translator(str(r["lang"]))
            address = TableAddress(platform=str(r["platform"]), community=str(r["community"]),
                                   channel=str(r["channel"]))
            messenger = self.output.messenger
            try:
                await messenger.announce(table=address, text=paid_line(now_settled, due, name=msg.name, tr=table_tr))
                ref = now_settled.notice_ref
                if ref is None or not await edit_notice(messenger, table=address, ref=ref,
                                                        text=settle_up_text(now_settled, table_tr),
                                                        buttons=buttons(now_settled, table_tr)):
                    await messenger.announce(table=address, text=dues_text(now_settled, table_tr))
            except Exception:  # the mark is stored; 'ledger' shows it
                log.exception("table %s: announcing a payment failed", settled.ledger.table_id)
        return Reply(tr("session.reply_paid", payment=due_text(due, now_settled, tr)), private=True)

    # ------------------------------------------------------------------ finding

    async def _channel_table(self, msg: Inbound) -> _TableRow:
        rows = await self.store.fetch(
            "SELECT t.id AS id, t.community AS community, t.open AS open, t.view AS view, "
            "(SELECT COUNT(*) FROM tournaments u WHERE u.table_id = t.id) AS tourney "
            "FROM tables t WHERE t.platform = ? AND t.channel = ? ORDER BY t.open DESC, t.id DESC LIMIT 1",
            (msg.platform, msg.channel))
        if not rows:
            raise Refusal("refuse.no_table")
        r = rows[0]
        if int(r["tourney"]):
            raise Refusal("session.refuse_tourney")
        return _TableRow(id=int(r["id"]), community=str(r["community"]), open=bool(r["open"]),
                         image=r["view"] == "image")

    async def _channel_tables(self, msg: Inbound) -> list[int]:
        return [int(r["id"]) for r in await self.store.fetch(
            "SELECT id FROM tables WHERE platform = ? AND channel = ? ORDER BY id", (msg.platform, msg.channel))]

    async def _last_settle_up(self, table_id: int) -> SettleUp | None:
        rows = await self.store.fetch("SELECT id FROM table_sessions WHERE table_id = ? ORDER BY no DESC LIMIT 1",
                                      (table_id,))
        return await load_settle_up(self.store.fetch, int(rows[0]["id"])) if rows else None

    async def _find_due(self, ids: list[int], names: str, msg: Inbound) -> tuple[SettleUp, Due] | None:
        """The payment 'PAYER PAYEE' names (names may hold spaces), open ones first, newest settle-up first;
        else a paid one of the channel's last settle-up (a duplicate mark: answered so)."""
        words = names.split()
        wanted = [(" ".join(words[:i]).casefold(), " ".join(words[i:]).casefold()) for i in range(1, len(words))]
        candidates = list(reversed(ids))
        tables = await self._channel_tables(msg)
        if tables:
            last = await self._last_settle_up(tables[-1])
            if last is not None and last.id not in candidates:
                candidates.append(last.id)
        for settle_up_id in candidates:
            settled = await load_settle_up(self.store.fetch, settle_up_id)
            if settled is None:
                continue
            # open ones first, and among them one the asker is a party to (two players may share a name)
            for due in sorted(settled.dues, key=lambda d: (d.paid, msg.user not in (d.payer, d.payee))):
                pair = (_name(settled, due.payer).casefold(), _name(settled, due.payee).casefold())
                if pair in wanted:
                    return settled, due
        return None


@dataclass(frozen=True, slots=True)
class _TableRow:
    """The channel's table as the ledger needs it: the open one, else the last one closed there."""

    id: int
    community: str
    open: bool
    image: bool
    """The table shows pictures (``config view=image``, the default)."""


# ------------------------------------------------------------------ words


def _name(settled: SettleUp, user: str) -> str:
    return settled.ledger.name_of(user) if user != HOUSE_BOTS else "house"


def _shown_name(ledger: Ledger, user: str, tr: Translator) -> str:
    return tr("session.house_bots") if user == HOUSE_BOTS else ledger.name_of(user)


def _chips(n: int, tr: Translator, money: Money | None) -> str:
    text = render.chips(n, tr)
    return f"{text} ({money.of(n)})" if money is not None else text


def _signed(n: int, money: Money | None) -> str:
    text = f"{n:+d}" if n else "0"
    if money is not None:
        value = money.of(abs(n))
        text += f" ({'-' if n < 0 else '+' if n else ''}{value})"
    return text


def ledger_title(ledger: Ledger, tr: Translator, *, final: bool = False) -> str:
    end = tr("session.now") if ledger.ended_at is None else day_time(ledger.ended_at)
    return tr("session.title_final" if final else "session.title", no=ledger.no, start=day_time(ledger.started_at),
              end=end)


def ledger_rows(ledger: Ledger, tr: Translator, *, money: Money | None) -> tuple[list[str], list[list[str]]]:
    """The ledger's header and rows, as its text and its picture show them."""
    header = [tr("session.col_player"), tr("session.col_buy_ins"), tr("session.col_out"), tr("session.col_stack"),
              tr("session.col_net")]
    rows = [[_shown_name(ledger, ln.user, tr), f"{ln.bought} ({ln.buy_ins})", str(ln.cashed), str(ln.stack),
             _signed(ln.net, money)] for ln in ledger.lines]
    return header, rows


def ledger_picture(ledger: Ledger, tr: Translator, *, money: Money | None, notes: Sequence[str] = ()) -> bytes:
    """The ledger as a PNG (an image table's 'ledger')."""
    header, rows = ledger_rows(ledger, tr, money=money)
    return ledger_png(title=ledger_title(ledger, tr), header=header, rows=rows,
                      nets=[ln.net for ln in ledger.lines], notes=notes, lang=tr.lang)


def ledger_text(ledger: Ledger, tr: Translator, *, money: Money | None, final: bool = False) -> str:
    """The ledger as a monospace table: a title, a header, a row a player, the house bots last."""
    title = ledger_title(ledger, tr, final=final)
    if not ledger.lines:
        return title + "\n" + tr("session.empty")
    header, rows = ledger_rows(ledger, tr, money=money)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(r)).rstrip()
             for r in [header, *rows]]
    return "\n".join([title, *lines])


def due_text(due: Due, settled: SettleUp, tr: Translator) -> str:
    """'bob pays ann 35 chips' (with the money if the table set a chip value)."""
    ledger = settled.ledger
    return tr("session.house_pays" if due.payer == HOUSE_BOTS else "session.pays",
              payer=_shown_name(ledger, due.payer, tr), payee=_shown_name(ledger, due.payee, tr),
              chips=_chips(due.chips, tr, settled.money))


def dues_text(settled: SettleUp, tr: Translator) -> str:
    """The settle-up's payments: those between players, open or marked paid; those with the house bots apart."""
    players = [d for d in settled.dues if not d.house]
    house = [d for d in settled.dues if d.house]
    lines = [tr("session.dues_title", no=settled.ledger.no)]
    if not settled.dues:
        lines.append(tr("session.nothing_to_pay"))
    for d in players:
        lines.append(tr("session.due_paid" if d.paid else "session.due_open", payment=due_text(d, settled, tr)))
    if house:
        lines.append(tr("session.house_note"))
        lines += [tr("session.due_house", payment=due_text(d, settled, tr)) for d in house]
    if players:
        left = [d for d in players if not d.paid]
        lines.append(tr("session.open_count", count=len(left)) if left else tr("session.all_paid"))
    return "\n".join(lines)


def paid_line(settled: SettleUp, due: Due, *, name: str, tr: Translator) -> str:
    """A payment marked."""
    return tr("session.line_paid", name=name, payment=due_text(due, settled, tr))


def buttons(settled: SettleUp, tr: Translator) -> tuple[Button, ...]:
    """A button for each payment between players still open: 'paid @settle-up.payment'."""
    ledger = settled.ledger
    return tuple(Button(label=tr("session.button_paid", payer=_shown_name(ledger, d.payer, tr),
                                 payee=_shown_name(ledger, d.payee, tr)), command=f"paid @{settled.id}.{d.seq}")
                 for d in settled.open)


def settle_up_text(settled: SettleUp, tr: Translator) -> str:
    """What a settle or a stop posts: the final ledger and its payments."""
    return ledger_text(settled.ledger, tr, money=settled.money, final=True) + "\n\n" + dues_text(settled, tr)


def ledger_csv(ledger: Ledger, tr: Translator) -> str:
    """The ledger as PokerNow's CSV (:data:`CSV_COLUMNS`): a row a player, the house bots as one."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    start = day_time(ledger.started_at)
    end = day_time(ledger.ended_at) if ledger.ended_at is not None else ""
    for ln in ledger.lines:
        writer.writerow([_shown_name(ledger, ln.user, tr), ln.user, start, end, ln.bought, ln.cashed, ln.stack,
                         ln.net])
    return out.getvalue()
