"""Rebuys and the host's approvals (``rebuy``, ``approve``, ``deny``) at cash tables: the commands
(:class:`Hosting`, the table's lock held); what is stored of them and the chips moved are
:mod:`bot.table.rebuys`'. A join asked for under ``config approve=on`` is :class:`~bot.table.seating.Seating`'s
until it is answered here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

from bot.core.errors import Refusal
from bot.core.i18n import family
from bot.core.model import Seat
from bot.core.ports import Clock, Inbound, Reply
from bot.store import Store, Tx
from bot.table import rebuys
from bot.table.dealer import Dealer
from bot.table.output import TableOutput
from bot.table.routes import Route
from bot.table.runtime import Runtime, require_owner, seated
from bot.table.seating import Seating
from bot.text import render
from bot.text.grammar import Command
from bot.text.render import chips_field

log = logging.getLogger(__name__)

_REQUEST_ID = re.compile(r"^#(\d{1,12})$")
"""What a request's buttons send after 'approve' or 'deny': its id."""
_ANSWERED = family("approval.refuse", ("approved", "denied", "gone"))
"""A request answered already, by what became of it."""
_CLOSED = family("approval.closed", ("approved", "denied", "gone"))
"""What the request's message says once answered (its buttons gone)."""
_TOLD = family("approval.dm", ("denied_join", "denied_rebuy", "approved_next", "approved_now"))
"""What the requester is told privately."""


class Hosting:
    """The rebuy and approval commands."""

    def __init__(self, *, dealer: Dealer, seating: Seating, output: TableOutput, store: Store, clock: Clock) -> None:
        self.dealer = dealer
        self.seating = seating
        self.output = output
        self.store = store
        self.clock = clock

    def routes(self) -> Mapping[str, Route]:
        return {"rebuy": Route(at_table=self.rebuy),
                "approve": Route(at_table=self.approve), "deny": Route(at_table=self.deny)}

    # ------------------------------------------------------------------ rebuy

    async def rebuy(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """'rebuy [amount]': chips from the wallet to the seat, from the next hand (at once between hands);
        a request to the host under 'config approve=on'."""
        if rt.table.tournament is not None:
            raise Refusal("rebuy.refuse_tourney")
        seat = seated(rt, msg)
        if rt.table.closing:  # stopped during this hand: it closes with the settlement
            raise Refusal("refuse.closing")
        amount = await self._checked(rt, seat, int(command.args[0]) if command.args else None)
        if not (msg.admin or msg.user == rt.table.creator) and await rebuys.approving(self.store, rt):
            if await rebuys.open_request_of(self.store, table_id=rt.table.id, user=msg.user) is not None:
                raise Refusal("approval.refuse_pending")
            async with self.store.atomic() as tx:
                request_id = await rebuys.add_request(tx, table_id=rt.table.id, user=msg.user, name=seat.name,
                                                      kind="rebuy", amount=amount, now=self.clock.now())
            await rebuys.post_request(self.output.messenger, self.store, rt=rt, request_id=request_id,
                                      name=seat.name, kind="rebuy", amount=amount)
            return Reply(self.output.tr(msg)("approval.reply_asked"), private=True)
        later = await self._rebuy(rt, seat, amount)
        tr = self.output.tr(msg)
        return Reply(tr("rebuy.reply_next" if later else "rebuy.reply_now", chips=render.chips(amount, tr)),
                     private=True)

    def _in_hand(self, rt: Runtime, seat: Seat) -> bool:
        return rt.playing and rt.engine_seat(seat.user) is not None

    async def _checked(self, rt: Runtime, seat: Seat, requested: int | None) -> int:
        """The rebuy's chips (``requested``, or what tops the stack up to the default buy-in), or a refusal:
        leaving, past the table's maximum buy-in (with the rebuy already waiting), more than the wallet."""
        if seat.leaving or seat.kicked:
            raise Refusal("refuse.leaving_after")
        table = rt.table
        waiting = (await rebuys.pending(self.store, rt)).get(seat.user, 0) if self._in_hand(rt, seat) else 0
        held = seat.stack + waiting  # a hand in progress counts at its start, as the seat's account does
        most = rebuys.max_buy_in(table)
        if requested is None:
            requested = rebuys.default_buy_in(table) - held
            if requested <= 0:
                raise Refusal("rebuy.refuse_not_short", chips=chips_field(held), most=chips_field(most))
        if held + requested > most:
            raise Refusal("rebuy.refuse_max", most=chips_field(most), room=chips_field(max(most - held, 0)))
        async with self.store.atomic() as tx:  # less what a rebuy waiting will take from it
            balance = await rebuys.wallet_of(tx, community=table.community, user=seat.user) - waiting
        if requested > balance:
            raise Refusal("rebuy.refuse_wallet", chips=chips_field(max(balance, 0)))
        return requested

    async def _rebuy(self, rt: Runtime, seat: Seat, amount: int,
                     within: Callable[[Tx], Awaitable[None]] | None = None) -> bool:
        """Stored (with ``within``), then said: waiting for the hand in progress to end (True), or applied now."""
        table = rt.table
        now = self.clock.now()
        if self._in_hand(rt, seat):
            waiting = await rebuys.pending(self.store, rt)
            total = waiting.get(seat.user, 0) + amount
            async with self.store.atomic() as tx:
                await rebuys.store_pending(tx, rt, user=seat.user, amount=total, now=now)
                if within is not None:
                    await within(tx)
            waiting[seat.user] = total
            await self.output.say(rt, "rebuy.line_next", name=seat.name, chips=chips_field(amount))
            return True
        async with self.store.atomic() as tx:
            balance = await rebuys.wallet_of(tx, community=table.community, user=seat.user)
            if amount > balance:  # spent meanwhile (an approval comes later)
                raise Refusal("rebuy.refuse_wallet", chips=chips_field(balance))
            await rebuys.move_rebuy(tx, table=table, user=seat.user, amount=amount, now=now)
            await tx.save_seat(table.id, replace(seat, stack=seat.stack + amount))
            if within is not None:
                await within(tx)
        seat.stack += amount
        await self.output.say(rt, "rebuy.line_now", name=seat.name, chips=chips_field(amount),
                              stack=chips_field(seat.stack))
        await self.output.publish(rt)
        await self.dealer.schedule_next(rt)
        return False

    # ------------------------------------------------------------------ approvals

    async def approve(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        return await self._answer(rt, msg, command, approve=True)

    async def deny(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        return await self._answer(rt, msg, command, approve=False)

    async def _answer(self, rt: Runtime, msg: Inbound, command: Command, *, approve: bool) -> Reply:
        require_owner(rt, msg)
        table = rt.table
        said = str(command.args[0])
        by_id = _REQUEST_ID.match(said)
        if by_id:
            request = await rebuys.request_by_id(self.store, table_id=table.id, request_id=int(by_id.group(1)))
        else:
            request = await rebuys.latest_request_named(self.store, table_id=table.id, name=said)
        if request is None:
            raise Refusal("approval.refuse_none", name=said)
        if request.status != "open":
            raise Refusal(_ANSWERED[request.status], name=request.name)
        now = self.clock.now()

        def mark(status: str) -> Callable[[Tx], Awaitable[None]]:
            async def within(tx: Tx) -> None:
                await rebuys.answer_request(tx, request_id=request.id, status=status, by=msg.user, now=now)
            return within

        seat = table.seat_of(request.user)
        gone = seat is not None if request.kind == "join" else seat is None or seat.leaving or seat.kicked
        if gone:  # seated meanwhile (a join), or left (a rebuy): nothing to answer any more
            async with self.store.atomic() as tx:
                await mark("gone")(tx)
            await self._close(rt, request, "gone", by=msg.name)
            raise Refusal(_ANSWERED["gone"], name=request.name)
        tr = self.output.tr(msg)
        told = self.output.translator_for(platform=table.platform, user=request.user)
        if not approve:
            async with self.store.atomic() as tx:
                await mark("denied")(tx)
            await self.output.say(rt, "approval.line_denied", name=request.name)
            await self._close(rt, request, "denied", by=msg.name)
            await self._tell(rt, request.user, told(_TOLD[f"denied_{request.kind}"]))
            return Reply(tr("approval.reply_denied", name=request.name), private=True)
        if request.kind == "join":
            if table.closing:
                raise Refusal("refuse.closing")
            seat_no = table.free_seat()
            if seat_no is None:
                raise Refusal("refuse.full")
            await self.seating.seat_and_welcome(rt, user=request.user, name=request.name, requested=request.amount,
                                                tr=told, seat_no=seat_no, within=mark("approved"))
            await self._close(rt, request, "approved", by=msg.name)
            return Reply(tr("approval.reply_approved", name=request.name), private=True)
        assert seat is not None and request.amount is not None
        amount = await self._checked(rt, seat, request.amount)
        later = await self._rebuy(rt, seat, amount, within=mark("approved"))
        await self._close(rt, request, "approved", by=msg.name)
        await self._tell(rt, request.user, told(_TOLD["approved_next" if later else "approved_now"],
                                                chips=render.chips(amount, told)))
        return Reply(tr("approval.reply_approved", name=request.name), private=True)

    async def _close(self, rt: Runtime, request: rebuys.Request, status: str, *, by: str) -> None:
        """The request's message says how it was answered, in the table's language; its buttons go."""
        await rebuys.close_request(self.output.messenger, rt=rt, request=request,
                                   text=rt.tr(_CLOSED[status], name=request.name, by=by))

    async def _tell(self, rt: Runtime, user: str, text: str) -> None:
        """A private message to the requester (output never stops the table: the table was told)."""
        try:
            await self.output.messenger.send_private(platform=rt.table.platform, user=user, text=text)
        except Exception:
            log.exception("table %s: telling %s the answer failed", rt.table.id, user)
