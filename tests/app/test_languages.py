"""A hand in English, Russian and Polish, through the console: the table's language for
the board and its lines, each player's for their answers and cards, kept over a restart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_console import Table, _two_players

from bot.core.i18n import Translator, translator
from bot.core.ports import Inbound
from bot.text.grammar import parse
from bot.text.handnames import high_name
from engine import best_high

pytestmark = [pytest.mark.usefixtures("store_backend"),
              pytest.mark.sqlite_only(reason="the words of each language, not the store: PostgreSQL adds nothing "
                                             "(the console and the store run on it in tests/app/test_console.py)")]

WORDS = re.compile(r"[^\W\d_]{3,}")
"""Words of three letters or more (names and cards excepted below)."""


async def _play_hand(t: Table) -> None:
    """Play the hand in progress to its end without reading any text: bring in, call, check."""
    for _ in range(80):
        hand = t.runtime.hand
        if hand is None or hand.is_over:
            return
        legal = {a.value for a in hand.legal_actions()}
        actor = t.runtime.setup.players[hand.actor].user
        await t.say(actor, next(a for a in ("bring-in", "call", "check") if a in legal))
    raise AssertionError("the hand does not end")


async def _transcript(tmp_path: Path, lang: str, seed: int = 11) -> list[str]:
    """Everything said from the seating to ann's 'history' after one hand called down, ``lang``
    for the table and both players."""
    async with Table(tmp_path / f"{lang}-{seed}.db", seed=seed) as t:
        await t.say("ann", "new")
        await t.say("ann", f"config lang={lang}")
        for user in ("ann", "bob"):
            await t.say(user, f"lang {lang}")
        start = len(t.out)
        await _two_players(t)
        await t.start()
        await _play_hand(t)
        await t.say("ann", "history")
        return t.out[start:]


ONE_POT = {
    # seed 19: ann's two pair take the high, bob's 7-5-4-3-2 the low; ann's low dies on seventh street
    (19, "en"): ("Pot 6: ann takes the high, 3 (two pair, jacks and fives); bob takes the low, 3 (7-5-4-3-2)",
                 ["no low yet", "no low yet", "drawing to 6-4-A", "drawing to 6-5-4-A", "no low"],
                 "#1: ann won 3 (net 0), bob won 3 (net 0) — high ann, low bob"),
    (19, "ru"): ("Банк 6: ann берёт хай — 3 (две пары, вальты и пятёрки); bob берёт лоу — 3 (7-5-4-3-2)",
                 ["лоу пока нет", "лоу пока нет", "дро на лоу 6-4-A", "дро на лоу 6-5-4-A", "лоу нет"],
                 "#1: ann выигрывает 3 (чистыми 0), bob выигрывает 3 (чистыми 0) — хай ann, лоу bob"),
    (19, "pl"): ("Pula 6: ann bierze high – 3 (dwie pary, walety i piątki); bob bierze low – 3 (7-5-4-3-2)",
                 ["jeszcze bez low", "jeszcze bez low", "ciągniesz do low 6-4-A", "ciągniesz do low 6-5-4-A",
                  "brak low"],
                 "#1: ann wygrywa 3 (na czysto 0), bob wygrywa 3 (na czysto 0) — high ann, low bob"),
    # seed 25: ann scoops with two pair, aces and threes, and an 8-6-3-2-A
    (25, "en"): ("Pot 6: ann scoops (high: two pair, aces and threes; low: 8-6-3-2-A)",
                 ["no low yet", "drawing to 3-2-A", "drawing to 3-2-A", "drawing to 8-3-2-A", "Low: 8-6-3-2-A"],
                 "#1: ann scooped 6 (net +3) — high and low"),
    (25, "ru"): ("Банк 6: ann забирает всё (хай: две пары, тузы и тройки; лоу: 8-6-3-2-A)",
                 ["лоу пока нет", "дро на лоу 3-2-A", "дро на лоу 3-2-A", "дро на лоу 8-3-2-A", "Лоу: 8-6-3-2-A"],
                 "#1: ann забирает весь банк 6 (чистыми +3) — и хай, и лоу"),
    (25, "pl"): ("Pula 6: ann zgarnia całą pulę (high: dwie pary, asy i trójki; low: 8-6-3-2-A)",
                 ["jeszcze bez low", "ciągniesz do low 3-2-A", "ciągniesz do low 3-2-A", "ciągniesz do low 8-3-2-A",
                  "Low: 8-6-3-2-A"],
                 "#1: ann zgarnia całą pulę 6 (na czysto +3) — high i low"),
}


def _pot_lines(lines: list[str], tr: Translator) -> list[str]:
    """The showdown's pot lines: "Pot 6: ...", "Main pot 40: ...", "Side pot 1 45: ..." in the language."""
    side = re.escape(tr("pot.label_side", index="@")).replace("@", r"\d+")
    labels = "|".join([re.escape(tr("pot.label_only")), re.escape(tr("pot.label_main")), side])
    return [line for line in lines if re.match(rf"\[table\] ({labels}) \d+: ", line)]


@pytest.mark.asyncio
@pytest.mark.parametrize("seed,lang", sorted(ONE_POT))
async def test_a_one_pot_showdown_its_low_lines_and_its_history(tmp_path: Path, seed: int, lang: str) -> None:
    """Nobody all-in: one pot, named "Pot" and no main or side pot; ann's low on the streets her cards
    come privately (third, seventh; the list holds every street's); what history says of it: won, net,
    who took the high and the low, or a scoop."""
    pot_line, lows, history = ONE_POT[seed, lang]
    tr = translator(lang)
    said = await _transcript(tmp_path, lang, seed)
    assert _pot_lines(said, tr) == [f"[table] {pot_line}"]
    main, side = tr("pot.label_main"), tr("pot.label_side", index="")
    assert not any(main in line or side in line for line in said)
    high = tr("strength.line", high="@", low="").split("@")[0]  # "High: ", "Хай: "
    # ann's cards come privately when a down card is dealt: third street and seventh (issue 24)
    assert [line.split(" · ")[1] for line in said if line.startswith(f"[dm ann] {high}")] == [lows[0], lows[-1]]
    assert said[-1] == f"[dm ann] {history}"


def _words(line: str) -> set[str]:
    return {w.lower() for w in WORDS.findall(re.sub(r"\[(dm|table|ok) \w+\]|\[table\]|\b(ann|bob)\b", "", line))}


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["ru", "pl"])
async def test_a_hand_in_each_language_says_every_line_in_it(tmp_path: Path, lang: str) -> None:
    english = await _transcript(tmp_path, "en")
    other = await _transcript(tmp_path, lang)
    assert len(english) == len(other)  # the same seeded hand, line for line
    tr = translator(lang)
    text = "\n".join(other)
    assert tr("line.hand_starts", no=1, names="ann, bob") in text
    assert tr("street.7") in text.lower()
    for en_line, line in zip(english, other, strict=True):
        if _words(en_line) - {"stud", "hi", "lo"}:  # a line with words (not just names, cards and numbers)
            assert en_line != line, f"not translated: {line!r}"
    # the showdown names the hands in the language
    hand_names = [high_name(tr, best_high(cards)) for cards in _shown(other)]
    assert hand_names and all(name in text for name in hand_names)


def _shown(lines: list[str]) -> list[list]:  # type: ignore[type-arg]
    from engine import parse_cards

    cards = []
    for line in lines:
        m = re.search(r"((?:[2-9TJQKA]|10)[♣♦♥♠](?: (?:[2-9TJQKA]|10)[♣♦♥♠]){6})", line)
        if m and ":" in line and "[" not in m.group(1):
            cards.append(parse_cards(m.group(1).replace("♣", "c").replace("♦", "d").replace("♥", "h")
                                     .replace("♠", "s").replace("10", "T")))
    return cards


@pytest.mark.asyncio
async def test_each_player_reads_their_own_language_and_the_table_its_own(tmp_path: Path) -> None:
    async with Table(tmp_path / "mixed.db", seed=5) as t:
        await t.say("ann", "new")  # the console tells no language: the table is English
        await t.say("ann", "lang ru")  # ann chooses Russian
        bob = Inbound(platform="console", community="local", channel="main", user="bob", name="bob", text="join",
                      locale="pl-PL")  # bob's app is in Polish
        reply = await t.bot.handle(bob)
        assert reply.text == translator("pl")("reply.seated", chips=translator("pl").n("chips", 200))
        out = await t.say("ann", "join")
        assert f"[dm ann] {translator('ru')('reply.seated', chips=translator('ru').n('chips', 200))}" in out
        assert "[table] bob sits down with 200 chips." in "\n".join(t.out)  # the table speaks English
        start = len(t.out)
        await t.start()
        dealt = t.out[start:]
        ru, pl = translator("ru"), translator("pl")
        ann_cards = [ln for ln in dealt if ln.startswith("[dm ann]")]
        bob_cards = [ln for ln in dealt if ln.startswith("[dm bob]")]
        assert any(ru("private.cards", no=1, cards="") in ln for ln in ann_cards)
        assert any(pl("private.cards", no=1, cards="") in ln for ln in bob_cards)
        assert not any("your cards" in ln for ln in ann_cards + bob_cards)
        assert not any("High:" in ln for ln in ann_cards)
        assert any(ln.startswith("[table] Hand #1: ") for ln in dealt) and any(" to act (60s): " in ln for ln in dealt)
        # a refusal in the sender's language
        hand = t.runtime.hand
        actor = t.runtime.setup.players[hand.actor].user
        other = "bob" if actor == "ann" else "ann"
        refused = await t.say(other, "call")
        want = (ru if other == "ann" else pl)("refuse.not_your_turn", name=actor)
        assert f"[dm {other}] {want}" in refused


@pytest.mark.asyncio
async def test_languages_are_kept_over_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "kept.db"
    async with Table(db, seed=5) as t:
        await t.say("ann", "new")
        await t.say("ann", "config lang=pl")
        await t.say("ann", "lang ru")
        await _two_players(t)
    async with Table(db, seed=5) as t:
        assert t.runtime.table.lang == "pl"
        out = await t.start()
        ru, pl = translator("ru"), translator("pl")
        assert pl("reply.dealing", seconds=5) not in out and f"[dm ann] {ru('reply.dealing', seconds=5)}" in out
        assert pl("line.hand_starts", no=1, names="ann, bob") in out


@pytest.mark.asyncio
async def test_a_chosen_language_wins_over_the_platform_locale(tmp_path: Path) -> None:
    async with Table(tmp_path / "chosen.db") as t:
        say = lambda text, locale: t.bot.handle(Inbound(  # noqa: E731
            platform="console", community="local", channel="main", user="eve", name="eve", text=text, locale=locale))
        assert (await say("rules", "ru")).text == translator("ru")("rules.stud8")
        assert (await say("lang pl", "ru")).text == translator("pl")("reply.lang_set")
        assert (await say("rules", "ru")).text == translator("pl")("rules.stud8")
        assert (await say("lang en", "ru")).text == translator("en")("reply.lang_set")
        assert (await say("help", "ru-RU")).text.startswith("Commands:")


@pytest.mark.asyncio
async def test_bad_language_input_is_answered_with_usage_and_changes_nothing(tmp_path: Path) -> None:
    async with Table(tmp_path / "bad.db") as t:
        await t.say("ann", "new")
        out = await t.say("ann", "config lang=de")
        assert "lang is en, ru or pl, not 'de'" in out and "usage: config" in out
        assert t.runtime.table.lang == "en"
        assert "usage: lang [en|ru|pl]" in await t.say("ann", "lang klingon")
        assert parse("lang Русский").args == ("ru",) and parse("lang POLSKI").args == ("pl",)


@pytest.mark.asyncio
async def test_russian_and_polish_command_words_play(tmp_path: Path) -> None:
    async with Table(tmp_path / "words.db", seed=11) as t:
        await t.say("ann", "новый")
        await t.say("ann", "сесть")
        await t.say("bob", "usiądź")
        await t.say("ann", "начать")
        await t.wait(t.settings.next_hand_delay)  # dealt after the table's pause
        hand = t.runtime.hand
        actor = t.runtime.setup.players[hand.actor].user
        words = {"ann": {"bring-in": "бринг-ин"}, "bob": {"bring-in": "bring-in"}}
        await t.say(actor, words[actor]["bring-in"])
        assert len(t.runtime.hand.actions) == 1


def test_redteam_help_knows_every_word_a_command_is_typed_with() -> None:
    """'пас' folds, but 'help пас' answered "no command 'пас'"; so did 'help /fold' and 'help PAS'."""
    for typed, name in (("пас", "fold"), ("PAS", "fold"), ("/fold", "fold"), ("!Сесть", "join"), ("c", "call")):
        assert parse(f"help {typed}").args == (name,), typed


@pytest.mark.asyncio
@pytest.mark.parametrize("server,user,want", [("ru", "pl", "ru"), ("en-US", "pl", "pl"), (None, "ru", "ru"),
                                              ("en-GB", "ru", "en"), (None, None, "en")])
async def test_a_new_table_speaks_its_servers_language_else_its_openers(tmp_path: Path, server: str | None,
                                                                        user: str | None, want: str) -> None:
    async with Table(tmp_path / "new.db") as t:
        reply = await t.bot.handle(Inbound(platform="console", community="local", channel="main", user="ann",
                                           name="ann", text="new", locale=user, community_locale=server))
        assert reply.ok and t.runtime.table.lang == want
        assert reply.text == translator(user)("reply.opened")  # the answer is in the opener's language
