"""The answers to ``stats [name]`` and ``top net [day|week|all]``, in the asker's language.

``stats`` is private: the asker's own stats, or another player's of the same community
by name; with a picture of their net chips over their hands where the channel's table
shows images (text alone elsewhere, and on the console). The hands are cash-table hands;
sit-and-gos have a line of their own (places, prizes, buy-ins: tournament chips are not money).
"""

from __future__ import annotations

import logging

from bot.core.i18n import Translator, family
from bot.core.limits import MAX_SEATS, PERIODS
from bot.core.ports import Clock, Reply
from bot.stats.book import PlayerStats, StatsBook, TourneyStats
from bot.stats.chart import net_png
from bot.store import Store
from bot.text import render

log = logging.getLogger(__name__)

_TOP_TITLES = family("stats.top", tuple(PERIODS))
_PLACES = family("stats.place", range(1, MAX_SEATS + 1))


def _percent(part: int, whole: int) -> int:
    """``part`` of ``whole`` in whole percent, a half rounded up (in integers: no float, no banker's rounding).

    >>> _percent(26, 80), _percent(1, 8), _percent(1, 3), _percent(0, 0)
    (33, 13, 33, 0)
    """
    return (200 * part + whole) // (2 * whole) if whole else 0


def signed_chips(n: int, tr: Translator) -> str:
    """'+340 chips', '-5 chips', '0 chips' in ``tr``'s language."""
    return ("+" if n > 0 else "-" if n < 0 else "") + render.chips(abs(n), tr)


def stats_text(stats: PlayerStats, *, name: str, tr: Translator) -> str:
    """A player's stats as the reply lists them."""
    return tr("stats.text", name=name, hands=stats.hands, vpip=stats.vpip,
              vpip_percent=_percent(stats.vpip, stats.hands), showdowns=stats.showdowns,
              won=stats.won_showdowns, won_percent=_percent(stats.won_showdowns, stats.showdowns),
              high=stats.high_halves, low=stats.low_halves, scoops=stats.scoops, net=signed_chips(stats.net, tr),
              biggest=render.chips(stats.biggest_pot, tr))


def tourney_text(stats: TourneyStats, *, tr: Translator) -> str:
    """A player's sit-and-go line: how many, their places, the prizes won and the buy-ins paid."""
    places = ", ".join(f"{tr(_PLACES[str(place)]) if str(place) in _PLACES else place} ×{count}"
                       for place, count in stats.places)
    return tr("stats.tourney", played=stats.played, places=places, prizes=render.chips(stats.prizes, tr),
              buyins=render.chips(stats.buyins, tr))


class StatsAnswers:
    """``stats`` and ``top net`` for a :class:`~bot.app.StudBot` (which routes the commands here)."""

    def __init__(self, *, store: Store, clock: Clock) -> None:
        self.book = StatsBook(store)
        self.clock = clock

    async def stats(self, *, community: str, user: str, name: str, asked: str | None, tr: Translator,
                    image: bool) -> Reply:
        """The stats of the asker (``user``, ``name``), or of the player called ``asked``."""
        if asked is not None:
            player = await self.book.find(community, asked)
            if player is None:
                return Reply(tr("stats.nobody", name=asked), private=True, ok=False)
            user, name = player.user, player.name
        stats = await self.book.player(community, user)
        tourneys = await self.book.tourneys(community, user)
        if not stats.hands and not tourneys.played:
            return Reply(tr("stats.none", name=name), private=True)
        text = stats_text(stats, name=name, tr=tr) if stats.hands else tr("stats.no_cash", name=name)
        if tourneys.played:
            text += "\n" + tourney_text(tourneys, tr=tr)
        picture = None
        if image and stats.hands:
            try:
                picture = net_png(await self.book.net_series(community, user), name=name, tr=tr)
            except Exception:  # the text is the answer; the picture is a bonus
                log.exception("drawing the stats chart of %s in %s failed; answering with text", user, community)
        return Reply(text, private=True, image=picture)

    async def top_net(self, *, community: str, period: str, tr: Translator) -> Reply:
        rows = await self.book.top_net(community, period=period, now=self.clock.now())
        if not rows:
            return Reply(tr("stats.top_none"), private=True)
        lines = [tr(_TOP_TITLES[period])]
        lines += [f"{i}. {name} {signed_chips(total, tr)}" for i, (name, total) in enumerate(rows, 1)]
        return Reply("\n".join(lines), private=True)
