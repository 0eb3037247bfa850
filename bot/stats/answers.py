"""The answers to ``stats [name]`` and ``top net [day|week|all]``, in the asker's language.

``stats`` is private: the asker's own stats, or another player's of the same community
by name; with a picture of their net chips over their hands where the channel's table
shows images (text alone elsewhere, and on the console). The hands are cash-table hands;
sit-and-gos have a line of their own (places, prizes, buy-ins: tournament chips are not money).

``stats`` counts every game's hands, with a line of each game's hands and net when the player
played several; ``stats razz`` (``stud8``, ``stud``, ``razz``, before or after a name) the hands of
that game alone, and its sit-and-gos. Stud and Razz pots go whole to one hand (G6, G7): their
stats count the pots won and those won unshared, where Stud Hi-Lo's count the high and low halves.
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
from bot.text.results import game_name
from engine.games import Game

log = logging.getLogger(__name__)

_TOP_TITLES = family("stats.top", tuple(PERIODS))
_PLACES = family("stats.place", range(1, MAX_SEATS + 1))
_TEXTS = family("stats", ("text", "text_stud8"))
"""Every game's stats, and Stud Hi-Lo's alone (its title names it)."""


def _percent(part: int, whole: int) -> int:
    """``part`` of ``whole`` in whole percent, a half rounded up (in integers: no float, no banker's rounding).

    >>> _percent(26, 80), _percent(1, 8), _percent(1, 3), _percent(0, 0)
    (33, 13, 33, 0)
    """
    return (200 * part + whole) // (2 * whole) if whole else 0


def signed_chips(n: int, tr: Translator) -> str:
    """'+340 chips', '-5 chips', '0 chips' in ``tr``'s language."""
    return ("+" if n > 0 else "-" if n < 0 else "") + render.chips(abs(n), tr)


GAME_WORDS = tuple(g.value for g in Game)
"""What ``stats`` takes for a game: ``stud8``, ``stud``, ``razz``."""


def asked_game(asked: str | None) -> tuple[str | None, str | None]:
    """(game, name) of what follows ``stats``: a game's word first or last, the rest a name.

    >>> asked_game("razz"), asked_game("Razz Bob Smith"), asked_game("Bob stud"), asked_game("Bob"), asked_game(None)
    (('razz', None), ('razz', 'Bob Smith'), ('stud', 'Bob'), (None, 'Bob'), (None, None))
    """
    words = (asked or "").split()
    if words and words[0].lower() in GAME_WORDS:
        return words[0].lower(), " ".join(words[1:]) or None
    if len(words) > 1 and words[-1].lower() in GAME_WORDS:
        return words[-1].lower(), " ".join(words[:-1])
    return None, asked


def stats_text(stats: PlayerStats, *, name: str, tr: Translator, game: str | None = None) -> str:
    """A player's stats as the reply lists them: of every game, or of ``game``'s hands (named in the title).
    Stud and Razz pots go whole to one hand: the pots won, and how many of them unshared."""
    if game in (Game.STUD.value, Game.RAZZ.value):
        return tr("stats.text_whole", name=name, game=game_name(tr, game), hands=stats.hands, vpip=stats.vpip,
                  vpip_percent=_percent(stats.vpip, stats.hands), showdowns=stats.showdowns,
                  won=stats.won_showdowns, won_percent=_percent(stats.won_showdowns, stats.showdowns),
                  pots=stats.high_halves if game == Game.STUD.value else stats.low_halves, scoops=stats.scoops,
                  net=signed_chips(stats.net, tr), biggest=render.chips(stats.biggest_pot, tr))
    return tr(_TEXTS["text" if game is None else "text_stud8"], name=name,
              game=game_name(tr, game) if game is not None else "", hands=stats.hands, vpip=stats.vpip,
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


def games_text(games: list[tuple[str, int, int]], *, tr: Translator) -> str:
    """The line of each game's hands and net: 'By game: Razz 2 hands, -5 chips · Stud Hi-Lo 3 hands, +20 chips'."""
    return tr("stats.by_game", games=" · ".join(tr.n("stats.game_hands", hands, game=game_name(tr, game),
                                                        net=signed_chips(net, tr)) for game, hands, net in games))


class StatsAnswers:
    """``stats`` and ``top net`` for a :class:`~bot.app.StudBot` (which routes the commands here)."""

    def __init__(self, *, store: Store, clock: Clock) -> None:
        self.book = StatsBook(store)
        self.clock = clock

    async def stats(self, *, community: str, user: str, name: str, asked: str | None, tr: Translator,
                    image: bool) -> Reply:
        """The stats of the asker (``user``, ``name``), or of the player called ``asked``; of one game's
        hands when ``asked`` names it (:func:`asked_game`)."""
        game, asked = asked_game(asked)
        if asked is not None:
            player = await self.book.find(community, asked)
            if player is None:
                return Reply(tr("stats.nobody", name=asked), private=True, ok=False)
            user, name = player.user, player.name
        stats = await self.book.player(community, user, game=game)
        tourneys = await self.book.tourneys(community, user, game=game)
        if not stats.hands and not tourneys.played:
            if game is not None:
                return Reply(tr("stats.none_game", name=name, game=game_name(tr, game)), private=True)
            return Reply(tr("stats.none", name=name), private=True)
        text = stats_text(stats, name=name, tr=tr, game=game) if stats.hands else tr("stats.no_cash", name=name)
        if game is None and stats.hands:
            games = await self.book.games(community, user)
            if len(games) > 1:
                text += "\n" + games_text(games, tr=tr)
        if tourneys.played:
            text += "\n" + tourney_text(tourneys, tr=tr)
        picture = None
        if image and stats.hands:
            try:
                title = name if game is None else f"{name} · {game_name(tr, game)}"
                picture = net_png(await self.book.net_series(community, user, game=game), name=title, tr=tr)
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
