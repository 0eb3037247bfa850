"""The host's clocks at a cash table: ``pause``, ``resume`` and ``config timebank=N timebank_refill=S/H``
(the clocks themselves: bot/table/timebank.py and the dealer's timers)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from bot.core.errors import Refusal
from bot.core.limits import MAX_REFILL_HANDS, MAX_TIMEBANK
from bot.core.model import TableClocks
from bot.core.names import display_name
from bot.core.ports import Inbound, Reply
from bot.store import Store
from bot.table import timebank
from bot.table.dealer import Dealer
from bot.table.output import TableOutput
from bot.table.routes import Route
from bot.table.runtime import Runtime, require_owner
from bot.text.grammar import Command

TIMEBANK_OPTIONS = ("timebank", "timebank_refill")
"""The options of ``config`` answered here."""


class HostClocks:
    """``pause`` and ``resume`` (the creator or an admin), and the time bank's options of ``config``."""

    def __init__(self, *, dealer: Dealer, output: TableOutput, store: Store) -> None:
        self.dealer = dealer
        self.output = output
        self.store = store

    def routes(self) -> Mapping[str, Route]:
        return {"pause": Route(at_table=self.pause), "resume": Route(at_table=self.resume)}

    async def pause(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        require_owner(rt, msg)
        _cash_only(rt)
        clocks = rt.clocks
        if clocks.paused:
            raise Refusal("timebank.refuse_paused", name=clocks.paused_by or "?")
        name = display_name(msg.name) or "player"
        await self.dealer.pause(rt, by=name)
        await self.output.say(rt, "timebank.line_paused", name=name)
        await self.output.publish(rt)
        return Reply(self.output.tr(msg)("timebank.reply_paused"), private=True)

    async def resume(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        require_owner(rt, msg)
        _cash_only(rt)
        if not rt.clocks.paused:
            raise Refusal("timebank.refuse_not_paused")
        await self.dealer.resume(rt)
        await self.output.say(rt, "timebank.line_resumed", name=display_name(msg.name) or "player")
        await self.output.publish(rt)
        return Reply(self.output.tr(msg)("timebank.reply_resumed"), private=True)

    async def configure(self, rt: Runtime, options: Mapping[str, int | str]) -> TableClocks | None:
        """The clocks ``config timebank=N timebank_refill=S/H`` asks for (checked; a refusal if out of range),
        or None if it asks for neither. :meth:`save` stores them with the table."""
        if not any(key in options for key in TIMEBANK_OPTIONS):
            return None
        _cash_only(rt)
        clocks = rt.clocks
        size = options.get("timebank", clocks.timebank)
        if not isinstance(size, int) or not 0 <= size <= MAX_TIMEBANK:
            raise Refusal("timebank.refuse_size", high=MAX_TIMEBANK)
        refill = options.get("timebank_refill")
        seconds, hands = clocks.refill_seconds, clocks.refill_hands
        if isinstance(refill, str):
            given_seconds, _, given_hands = refill.partition("/")
            seconds, hands = int(given_seconds), int(given_hands)
            if not (0 <= seconds <= MAX_TIMEBANK and 1 <= hands <= MAX_REFILL_HANDS):
                raise Refusal("timebank.refuse_refill", high=MAX_TIMEBANK, hands=MAX_REFILL_HANDS)
        return replace(clocks, timebank=size, refill_seconds=seconds, refill_hands=hands,
                       banks={} if size != clocks.timebank else clocks.banks)

    async def save(self, rt: Runtime, clocks: TableClocks) -> None:
        """Store and apply what :meth:`configure` gave (a new bank size fills every bank), and say it."""
        async with self.store.atomic() as tx:
            await timebank.save_clocks(tx, rt.table.id, clocks)
            if clocks.timebank != rt.clocks.timebank:
                await timebank.fill_banks(tx, rt.table.id)
        rt.clocks = clocks
        if rt.playing:  # a bank running now runs on with what the new size leaves of it
            self.dealer.arm_turn(rt)
        if clocks.timebank:
            await self.output.say(rt, "timebank.line_config", seconds=clocks.timebank, refill=clocks.refill_seconds,
                                  hands=clocks.refill_hands)
        else:
            await self.output.say(rt, "timebank.line_config_none")


def _cash_only(rt: Runtime) -> None:
    """A sit-and-go's clocks are its own (its levels may run on minutes): no pause, no time bank."""
    if rt.table.tournament is not None:
        raise Refusal("timebank.refuse_tournament")
