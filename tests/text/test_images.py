"""Board images: the render model, the pixels, privacy of down cards, the cache."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator

import pytest
from helpers import make_hand, play
from PIL import Image, ImageDraw
from test_results import RAZZ_DOWN, STUD_DOWN, game_showdown

from bot.core.i18n import EN, Translator, translator
from bot.core.model import Seat, Table
from bot.text import handnames, images, results
from bot.text.images import BACK, CARD_H, CARD_W, FACE, FOUR_COLOURS, HIGH_MARK, LOW_MARK, TWO_COLOURS, dimmed
from bot.text.render import street_name
from engine import Deck, DeckDealer, Hand, Stakes, best_high, best_low, parse_cards
from engine.games import Game

RGB = tuple[int, int, int]


def table(hand_no: int = 7) -> Table:
    return Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30,
                 hand_no=hand_no)


def decode(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    return img.convert("RGB")


def close(a: tuple[int, ...], b: RGB, tol: int = 4) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def pixel(img: Image.Image, xy: tuple[int, int]) -> RGB:
    p = img.getpixel(xy)
    assert isinstance(p, tuple)
    return (int(p[0]), int(p[1]), int(p[2]))


def centre(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)


def pip_centre(box: tuple[int, int, int, int], w: int = CARD_W, h: int = CARD_H) -> tuple[int, int]:
    """The middle of the big suit symbol (solid for every suit)."""
    side = int(0.46 * w)
    return (box[0] + int(0.46 * w) + side // 2, box[1] + int(0.58 * h) + side // 2)


def four_handed() -> Hand:
    return make_hand({
        "ann": "Ah 2h 3h 4h 5h 6h 7h", "bob": "Kc Kd 2c Ks Qs Js 9s",
        "cat": "8d 8c 4d Td 3s 3c 6d", "dan": "5c 5d Ac Jd Jc 7d 7s",
    }, stacks={"ann": 100, "bob": 100, "cat": 30, "dan": 100})


def random_hands(n: int, seed: int) -> Iterator[Hand]:
    """Every state of ``n`` random hands (random legal actions, seeded), one yield per state."""
    rng = random.Random(seed)
    for _ in range(n):
        players = rng.randint(2, 8)
        names = [f"p{i}" for i in range(players)]
        stacks = [rng.choice([3, 12, 40, 200]) for _ in names]
        hand = Hand(stakes=Stakes(), names=names, stacks=stacks, dealer=DeckDealer(Deck.shuffled(rng=rng)))
        yield hand
        while not hand.is_over:
            hand.act(rng.choice(hand.legal_actions()))
            yield hand


def check_board_pixels(img: Image.Image, layout: images.BoardLayout) -> None:
    for seat in layout.seats:
        for slot in seat.slots:
            want = FACE if slot.face_up else BACK
            if seat.folded:
                want = dimmed(want)
            got = pixel(img, centre(slot.box))
            assert close(got, want), (seat.name, slot, got, want)


# ------------------------------------------------------------------ the board


def test_board_png_decodes_with_the_layout_size() -> None:
    hand = four_handed()
    layout = images.board_layout(table(), hand, names=hand.names)
    img = Image.open(io.BytesIO(images.board_png(table(), hand, names=hand.names)))
    assert img.format == "PNG"
    assert img.size == (layout.width, layout.height)
    assert 900 <= layout.width <= 1200
    for seat in layout.seats:
        assert 0 <= seat.box[0] < seat.box[2] <= layout.width and 0 <= seat.box[1] < seat.box[3] <= layout.height
        for slot in seat.slots:
            assert seat.box[0] <= slot.box[0] < slot.box[2] <= seat.box[2]
            assert seat.box[1] <= slot.box[1] < slot.box[3] <= seat.box[3]


def test_card_slots_per_street_and_face_up_exactly_the_up_cards() -> None:
    hand = four_handed()
    play(hand, "bring-in", "call", "call", "fold")  # ann folds on third street
    counts = []
    while not hand.is_over:
        layout = images.board_layout(table(), hand, names=hand.names)
        counts.append((hand.street, [len(s.slots) for s in layout.seats]))
        for seat in layout.seats:
            assert len(seat.slots) == len(hand.cards[seat.seat])  # folded seats keep theirs
            assert layout.face_up_cards(seat.seat) == hand.up_cards(seat.seat)
            assert [s.face_up for s in seat.slots] == [i in (2, 3, 4, 5) for i in range(len(seat.slots))]
        check_board_pixels(decode(images.board_png(table(), hand, names=hand.names)), layout)
        hand.act("call" if hand.can_call() else "check")
    first_of_street: dict[int, list[int]] = {}
    for street, count in counts:
        first_of_street.setdefault(street, count)
    assert first_of_street == {4: [3, 4, 4, 4], 5: [3, 5, 5, 5], 6: [3, 6, 6, 6], 7: [3, 7, 7, 7]}


def test_third_street_has_three_slots_each() -> None:
    hand = four_handed()
    layout = images.board_layout(table(), hand, names=hand.names)
    assert [len(s.slots) for s in layout.seats] == [3, 3, 3, 3]
    assert [s.face_up for s in layout.seats[0].slots] == [False, False, True]
    assert all(s.card is None for seat in layout.seats for s in seat.slots if not s.face_up)


def test_showdown_board_shows_live_hands_not_folded_ones() -> None:
    hand = four_handed()
    play(hand, "bring-in", "call", "call", "fold")
    while not hand.is_over:
        hand.act("call" if hand.can_call() else "check")
    layout = images.board_layout(table(), hand, names=hand.names)
    assert layout.face_up_cards(0) == hand.up_cards(0)  # ann folded: her down cards stay hidden
    for seat in (1, 2, 3):
        assert layout.face_up_cards(seat) == hand.cards[seat]
    assert layout.title.endswith("showdown") and "wins" in layout.footer
    check_board_pixels(decode(images.board_png(table(), hand, names=hand.names)), layout)


def test_uncontested_winner_shows_nothing() -> None:
    hand = make_hand({"ann": "Ah 2h 3h", "bob": "Kc Kd 2c"})
    play(hand, "bring-in", "fold")
    assert hand.is_over
    layout = images.board_layout(table(), hand, names=hand.names)
    for seat in layout.seats:
        assert layout.face_up_cards(seat.seat) == hand.up_cards(seat.seat)


@pytest.mark.slow
def test_down_cards_never_face_up_before_the_hand_is_over() -> None:
    states = 0
    rendered = 0
    for hand in random_hands(150, seed=20261130):
        layout = images.board_layout(table(), hand, names=hand.names)
        for seat in layout.seats:
            up = layout.face_up_cards(seat.seat)
            if not hand.is_over or len(hand.live_seats) == 1 or hand.folded[seat.seat]:
                assert up == hand.up_cards(seat.seat)
                assert not set(up) & set(hand.down_cards(seat.seat))
            else:
                assert up == hand.cards[seat.seat]
        if layout.community is not None:
            assert layout.community.card == hand.community
        states += 1
        if states % 40 == 0:  # pixels too, for a sample of the states
            check_board_pixels(decode(images.board_png(table(), hand, names=hand.names)), layout)
            rendered += 1
    assert states > 1000 and rendered > 20


def test_board_marks_turn_bets_folds_all_in_and_pots() -> None:
    hand = make_hand({"ann": "Ah 2h 3h 4h 5h 6h 7h", "bob": "Kc Kd 2c Ks Qs Js 9s", "cat": "8d 8c 4d Td 3s 3c 6d"},
                     stacks={"ann": 100, "bob": 100, "cat": 3})
    play(hand, "bring-in", "call")  # bob brings in (2c), cat calls all-in (2 left after the ante)
    layout = images.board_layout(table(), hand, names=hand.names)
    by_name = {s.name: s for s in layout.seats}
    assert by_name["cat"].all_in and by_name["bob"].bet == 2 and by_name["cat"].bet == 2
    assert by_name["ann"].to_act and not by_name["bob"].to_act
    assert layout.pot == "Pot 3" and "ann to act" in layout.footer
    play(hand, "fold")
    layout = images.board_layout(table(), hand, names=hand.names)
    # only bob can still bet: the cards are run out to the showdown, bob and cat show
    assert layout.seats[0].folded and layout.title == "Hand #7 · showdown"
    assert layout.face_up_cards(0) == hand.up_cards(0)
    assert layout.face_up_cards(1) == hand.cards[1] and layout.face_up_cards(2) == hand.cards[2]


def test_board_without_a_hand_lists_the_seats() -> None:
    t = table()
    t.seats = {0: Seat(seat_no=0, user="u1", name="ann", stack=100),
               3: Seat(seat_no=3, user="u2", name="bob", stack=50, sitting_out=True)}
    layout = images.board_layout(t, None, names=[])
    assert [(s.name, s.stack, s.note, s.slots) for s in layout.seats] == [("ann", 100, "", ()),
                                                                            ("bob", 50, "sitting out", ())]
    assert decode(images.board_png(t, None, names=[])).size == (layout.width, layout.height)


def test_four_colours_differ_from_two() -> None:
    hand = make_hand({"ann": "Ah 2h 3c", "bob": "Kc Kd 2d"})  # doors: a club and a diamond
    layout = images.board_layout(table(), hand, names=hand.names)
    four = images.board_png(table(), hand, names=hand.names)
    two = images.board_png(table(), hand, names=hand.names, four_colour=False)
    assert four != two
    club, diamond = layout.seats[0].slots[2].box, layout.seats[1].slots[2].box
    img4, img2 = decode(four), decode(two)
    assert close(pixel(img4, pip_centre(club)), FOUR_COLOURS[0], 12)
    assert close(pixel(img4, pip_centre(diamond)), FOUR_COLOURS[1], 12)
    assert close(pixel(img2, pip_centre(club)), TWO_COLOURS[0], 12)
    assert close(pixel(img2, pip_centre(diamond)), TWO_COLOURS[1], 12)


def test_unchanged_board_comes_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    inner = images.board._draw_board

    def counting(layout: images.BoardLayout) -> Image.Image:
        calls.append(layout)
        return inner(layout)

    monkeypatch.setattr(images.board, "_draw_board", counting)  # where board_png looks it up
    images.clear_caches()
    hand = four_handed()
    first = images.board_png(table(), hand, names=hand.names)
    second = images.board_png(table(), hand, names=hand.names)
    assert first == second and len(calls) == 1
    hand.act("bring-in")
    third = images.board_png(table(), hand, names=hand.names)
    assert third != first and len(calls) == 2
    images.board_png(table(), hand, names=hand.names)
    assert len(calls) == 2
    images.clear_caches()
    assert images.board_png(table(), hand, names=hand.names) == third and len(calls) == 3


# ------------------------------------------------------------------ own cards and the showdown

PRIVATE_TOP = images.PAD + 56


def private_boxes(count: int) -> list[tuple[int, int, int, int]]:
    step = images.BIG_W + images.CARD_GAP
    return [(images.PAD + i * step, PRIVATE_TOP, images.PAD + i * step + images.BIG_W, PRIVATE_TOP + images.BIG_H)
            for i in range(count)]


def test_private_image_shows_every_own_card_face_up_and_marks_the_best_hands() -> None:
    hand = four_handed()
    play(hand, "bring-in", "call", "call", "call")
    while hand.street < 7 or len(hand.cards[0]) < 7:
        hand.act("call" if hand.can_call() else "check")
    assert len(hand.cards[0]) == 7 and not hand.is_over
    img = decode(images.private_png(hand, 0))  # ann: Ah 2h 3h 4h 5h 6h 7h, a straight flush and a wheel
    assert img.size[0] >= 7 * images.BIG_W
    boxes = private_boxes(7)
    for box in boxes:
        assert close(pixel(img, centre(box)), FACE)
    # down cards framed dark, up cards not
    frame = [pixel(img, (box[0] + 2, (box[1] + box[3]) // 2)) for box in boxes]
    assert [close(p, images.DOWN_FRAME, 30) for p in frame] == [True, True, False, False, False, False, True]
    marks_y = PRIVATE_TOP + images.BIG_H + 6 + images.BADGE_H // 2
    hi = [close(pixel(img, (box[0] + 4, marks_y)), HIGH_MARK, 8) for box in boxes]
    lo = [close(pixel(img, (box[2] - 4, marks_y)), LOW_MARK, 8) for box in boxes]
    assert hi == [False, False, True, True, True, True, True]  # 7-high straight flush: 3 to 7
    assert lo == [True, True, True, True, True, False, False]  # the wheel


def test_private_image_on_third_street() -> None:
    hand = four_handed()
    img = decode(images.private_png(hand, 1))
    for box in private_boxes(3):
        assert close(pixel(img, centre(box)), FACE)


def test_showdown_image_renders_every_shown_hand() -> None:
    hand = four_handed()
    play(hand, "bring-in", "call", "call", "call")
    while not hand.is_over:
        hand.act("call" if hand.can_call() else "check")
    assert len(hand.show_order) == 4 and len(hand.pot_results) >= 1
    data = images.showdown_png(hand, names=hand.names)
    img = decode(data)
    assert img.size[0] == images.WIDTH and img.size[1] > 4 * CARD_H
    row_h = 44 + CARD_H + 6 + images.BADGE_H + 16
    for n in range(len(hand.show_order)):  # every shown hand: seven cards face up
        y = images.PAD + 56 + n * (row_h + images.ROW_GAP) + 44
        for i in range(7):
            x = images.PAD + 16 + i * (CARD_W + images.CARD_GAP)
            assert close(pixel(img, centre((x, y, x + CARD_W, y + CARD_H))), FACE)
    assert images.showdown_png(hand, names=hand.names, four_colour=False) != data
    assert images.private_png(hand, 1, four_colour=False) != images.private_png(hand, 1)


def test_showdown_image_of_an_uncontested_hand() -> None:
    hand = make_hand({"ann": "Ah 2h 3h", "bob": "Kc Kd 2c"})
    play(hand, "bring-in", "fold")
    img = decode(images.showdown_png(hand, names=hand.names))
    assert img.size[0] == images.WIDTH


def test_community_card_is_drawn_face_up() -> None:
    # eight players with 200 chips calling down: 8 * 7 = 56 > 52 cards, so a community card
    names = [f"p{i}" for i in range(8)]
    rng = random.Random(3)
    hand = Hand(stakes=Stakes(), names=names, stacks=[200] * 8, dealer=DeckDealer(Deck.shuffled(rng=rng)))
    while not hand.is_over:
        hand.act("bring-in" if hand.can_bring_in() else "call" if hand.can_call() else "check")
    assert hand.community is not None
    layout = images.board_layout(table(), hand, names=names)
    assert layout.community is not None and layout.community.card == hand.community
    img = decode(images.board_png(table(), hand, names=names))
    assert close(pixel(img, centre(layout.community.box)), FACE)
    assert decode(images.private_png(hand, 0)).size[0] > 8 * images.BIG_W


def test_card_tiles_are_cached() -> None:
    card = parse_cards("As")[0]
    assert images.card_face(card, CARD_W, CARD_H) is images.card_face(card, CARD_W, CARD_H)
    assert images.card_face(card, CARD_W, CARD_H) is images.card_face(card, CARD_W, CARD_H, True, False, False)
    assert images.card_back(CARD_W, CARD_H) is images.card_back(CARD_W, CARD_H)


# ------------------------------------------------------------------ languages and the font

RU, PL = translator("ru"), translator("pl")
ENGLISH_WORDS = ("stack", "TO ACT", "FOLDED", "Hand #", "Hand over", "wins", "Community card", "Your cards",
                 "community", "Showdown", "uncontested", "No players", "sitting out")
"""The English of images.po, none of which may be left in a Russian or Polish image."""
NATIVE = {"ru": ("Раздача №7", "стек", "ХОД", "ОЛЛ-ИН", "ПАС"),
          "pl": ("Rozdanie nr 7", "stack", "RUCH", "ALL-IN", "PAS")}


def layout_texts(layout: images.BoardLayout) -> list[str]:
    texts = [layout.title, layout.subtitle, layout.pot, layout.pot_detail, layout.footer, layout.words.to_act,
             layout.words.folded, layout.words.all_in, layout.words.community]
    return texts + [t for seat in layout.seats for t in (seat.stack_text, seat.note)]


def no_english(texts: list[str], lang: str) -> None:
    for text in texts:
        for word in ENGLISH_WORDS:
            if lang == "pl" and word == "stack":
                continue  # Polish players say "stack" too
            assert word not in text, (lang, word, text)


def called_down(hand: Hand) -> Hand:
    while not hand.is_over:
        hand.act("call" if hand.can_call() else "check")
    return hand


def test_bundled_font_lacks_cyrillic_and_polish_so_we_ship_dejavu() -> None:
    missing = bytes(images.font(30).getmask("\uffff"))
    assert bytes(images.font(30).getmask("Ж")) == missing and bytes(images.font(30).getmask("ł")) == missing
    assert images.FONT_FILE.is_file() and (images.FONT_FILE.parent / "LICENSE").is_file()


@pytest.mark.parametrize("size", [18, 30])
def test_shipped_font_draws_cyrillic_and_polish_letters(size: int) -> None:
    f = images.wide_font(size)
    missing = bytes(f.getmask("\uffff"))
    letters = "ЖЩЫЁёжщыąćęłńóśźżĄĆĘŁŃÓŚŹŻ"
    bitmaps = set()
    for ch in letters:
        mask = f.getmask(ch)
        assert mask.getbbox() is not None, ch
        assert bytes(mask) != missing, ch
        bitmaps.add((mask.size, bytes(mask)))
    assert len(bitmaps) == len(letters)  # every letter its own glyph, no shared box
    img = Image.new("L", (400, 60), 0)
    ImageDraw.Draw(img).text((4, 4), "ЖЩЫ ąłż", font=f, fill=255)
    assert img.getbbox() is not None


def test_font_choice_per_language_and_text() -> None:
    assert images.text_font("Hand #7 · showdown", 30, "en") is images.font(30)  # English as before
    assert images.text_font("Жора wins 5", 30, "en") is images.wide_font(30)  # a Cyrillic name
    assert images.text_font("ann", 30, "ru") is images.wide_font(30)  # one face in the whole image
    assert images.text_font("ann", 30, "pl") is images.wide_font(30)


@pytest.mark.parametrize("tr", [RU, PL], ids=["ru", "pl"])
def test_board_in_russian_and_polish(tr: Translator) -> None:
    hand = make_hand({"ann": "Ah 2h 3h 4h 5h 6h 7h", "bob": "Kc Kd 2c Ks Qs Js 9s", "cat": "8d 8c 4d Td 3s 3c 6d"},
                     stacks={"ann": 100, "bob": 100, "cat": 3})
    play(hand, "bring-in", "call")  # cat all-in, ann to act
    layout = images.board_layout(table(), hand, names=hand.names, tr=tr)
    english = images.board_layout(table(), hand, names=hand.names)
    assert layout.lang == tr.lang and layout.title == tr("img.hand_title", no=7, street=street_name(tr, 3))
    assert street_name(tr, 3) in layout.title
    texts = layout_texts(layout)
    for word in NATIVE[tr.lang]:
        assert any(word in t for t in texts), (word, texts)
    no_english(texts, tr.lang)
    assert layout.seats == tuple(  # the same seats and cards, only the words differ
        images.SeatLayout(**{**{f: getattr(s, f) for f in s.__slots__}, "stack_text": t.stack_text})
        for s, t in zip(english.seats, layout.seats, strict=True))
    img = decode(images.board_png(table(), hand, names=hand.names, tr=tr))
    assert img.size == (layout.width, layout.height) == (english.width, english.height)
    check_board_pixels(img, layout)
    called_down(play(hand, "fold"))
    layout = images.board_layout(table(), hand, names=hand.names, tr=tr)
    assert street_name(tr, "showdown") in layout.title
    winners = [s for s in range(hand.seat_count) if any(s in r.shares for r in hand.pot_results)]
    assert layout.footer.startswith(tr("img.hand_over", wins=""))
    assert all(tr("img.wins", name=hand.names[s], amount="") in layout.footer for s in winners) and winners
    no_english(layout_texts(layout), tr.lang)
    assert layout.face_up_cards(0) == hand.up_cards(0)  # ann folded: still hidden
    check_board_pixels(decode(images.board_png(table(), hand, names=hand.names, tr=tr)), layout)


@pytest.mark.parametrize("tr", [RU, PL], ids=["ru", "pl"])
def test_down_cards_stay_down_in_every_language(tr: Translator) -> None:
    for n, hand in enumerate(random_hands(12, seed=6)):
        layout = images.board_layout(table(), hand, names=hand.names, tr=tr)
        for seat in layout.seats:
            if not hand.is_over or len(hand.live_seats) == 1 or hand.folded[seat.seat]:
                assert layout.face_up_cards(seat.seat) == hand.up_cards(seat.seat)
        if n % 15 == 0:
            check_board_pixels(decode(images.board_png(table(), hand, names=hand.names, tr=tr)), layout)


def test_idle_board_in_russian_and_polish() -> None:
    t = table()
    assert images.board_layout(t, None, names=[], tr=RU).pot == "Пока никого нет"
    t.seats = {0: Seat(seat_no=0, user="u1", name="ann", stack=100),
               3: Seat(seat_no=3, user="u2", name="Жора", stack=50, sitting_out=True)}
    for tr in (RU, PL):
        layout = images.board_layout(t, None, names=[], tr=tr)
        assert [s.note for s in layout.seats] == ["", tr("img.sitting_out")]
        assert layout.title == results.game_name(tr, "stud8")
        assert layout.footer in (tr("board.hint_idle"), tr("board.hint_running"))
        no_english(layout_texts(layout), tr.lang)
        assert decode(images.board_png(t, None, names=[], tr=tr)).size == (layout.width, layout.height)
    assert images.board_layout(t, None, names=[], tr=RU).seats[1].stack_text == "стек 50"


def test_board_memo_tells_languages_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    inner = images.board._draw_board

    def counting(layout: images.BoardLayout) -> Image.Image:
        calls.append(layout.lang)
        return inner(layout)

    monkeypatch.setattr(images.board, "_draw_board", counting)  # where board_png looks it up
    images.clear_caches()
    hand = four_handed()
    en = images.board_png(table(), hand, names=hand.names)
    ru = images.board_png(table(), hand, names=hand.names, tr=RU)
    pl = images.board_png(table(), hand, names=hand.names, tr=PL)
    assert len({en, ru, pl}) == 3 and calls == ["en", "ru", "pl"]
    assert images.board_png(table(), hand, names=hand.names, tr=EN) == en
    assert images.board_png(table(), hand, names=hand.names, tr=RU) == ru
    assert calls == ["en", "ru", "pl"]  # both from the memo


def test_private_image_in_russian_and_polish() -> None:
    hand = four_handed()
    play(hand, "bring-in", "call", "call", "call")
    while len(hand.cards[0]) < 7:
        hand.act("call" if hand.can_call() else "check")
    english = decode(images.private_png(hand, 0))
    for tr, words in ((RU, "Ваши карты"), (PL, "Twoje karty")):
        title = images.private_title(hand, 0, tr)
        assert title == tr("img.game_title", game=results.game_name(tr, "stud8"),
                           title=tr("img.your_cards", name="ann", street=street_name(tr, 7))) and words in title
        no_english([title], tr.lang)
        img = decode(images.private_png(hand, 0, tr=tr))
        assert img.size == english.size
        marks_y = PRIVATE_TOP + images.BIG_H + 6 + images.BADGE_H // 2
        boxes = private_boxes(7)
        assert [close(pixel(img, (b[0] + 4, marks_y)), HIGH_MARK, 8) for b in boxes] == [False, False] + [True] * 5
        assert [close(pixel(img, (b[2] - 4, marks_y)), LOW_MARK, 8) for b in boxes] == [True] * 5 + [False] * 2


@pytest.mark.parametrize("tr", [RU, PL], ids=["ru", "pl"])
def test_showdown_in_russian_and_polish(tr: Translator) -> None:
    hand = called_down(play(four_handed(), "bring-in", "call", "call", "call"))
    text = images.showdown_text(hand, names=hand.names, tr=tr)
    assert text.title == {"ru": "Стад хай-лоу · Вскрытие", "pl": "Stud Hi-Lo · Odsłonięcie kart"}[tr.lang]
    assert [seat for seat, _, _ in text.rows] == list(hand.show_order)
    for seat, title, rest in text.rows:
        cards = hand.all_cards(seat)
        assert handnames.high_name(tr, best_high(cards)) in rest  # native hand names
        low = best_low(cards)
        if low:
            assert handnames.low_name(tr, low) in rest
        assert handnames.high_name(EN, best_high(cards)) not in rest
        assert hand.names[seat] in title
    ann = {seat: (title, rest) for seat, title, rest in text.rows}[0]
    assert ann == {"ru": ("ann выигрывает 12", "Хай: стрит-флеш до семёрки · Лоу: колесо"),
                   "pl": ("ann wygrywa 12", "High: poker do siódemki · Low: koło")}[tr.lang]
    no_english([text.title, *(t for _, t, _ in text.rows), *(r for _, _, r in text.rows)], tr.lang)
    assert len(text.pots) == len(hand.pot_results)
    img = decode(images.showdown_png(hand, names=hand.names, tr=tr))
    assert img.size == decode(images.showdown_png(hand, names=hand.names)).size


def test_uncontested_showdown_in_russian() -> None:
    hand = play(make_hand({"ann": "Ah 2h 3h", "bob": "Kc Kd 2c"}), "bring-in", "fold")
    text = images.showdown_text(hand, names=hand.names, tr=RU)
    assert text.title == "Стад хай-лоу · Раздача окончена" and text.rows == ()
    assert text.pots[0].endswith(": bob забирает 2 без вскрытия")
    assert decode(images.showdown_png(hand, names=hand.names, tr=RU)).size[0] == images.WIDTH


@pytest.mark.parametrize("tr", [EN, RU, PL], ids=["en", "ru", "pl"])
def test_stakes_line_is_not_cut_in_any_language(tr: Translator) -> None:
    hand = four_handed()
    layout = images.board_layout(table(), hand, names=hand.names, tr=tr)
    f = images.text_font(layout.subtitle, 22, tr.lang)
    assert images.drawing._fit(layout.subtitle, f, layout.width - 2 * images.PAD) == layout.subtitle


# ------------------------------------------------------------------ the other games (GAMES.md)


@pytest.mark.parametrize("tr", [EN, RU, PL], ids=["en", "ru", "pl"])
def test_rule_g7_razz_pictures_name_razz_and_mark_the_low_as_the_low(tr: Translator) -> None:
    """Razz: the board and the showdown name the game; a hand is its ace-to-five low alone, whose five cards
    are marked LO (never HI), on the showdown and the private picture."""
    hand = game_showdown(RAZZ_DOWN, Game.RAZZ)
    razz = results.game_name(tr, "razz")
    layout = images.board_layout(table(), hand, names=hand.names, tr=tr)
    assert layout.subtitle.startswith(f"{razz} · ")
    text = images.showdown_text(hand, names=hand.names, tr=tr)
    assert text.title.startswith(f"{razz} · ")
    rows = {hand.names[seat]: rest for seat, _, rest in text.rows}
    low = {"en": "Low", "ru": "Лоу", "pl": "Low"}[tr.lang]
    assert rows == {"ann": f"{low}: 7-5-3-2-A", "bob": f"{low}: J-10-9-8-4"}
    assert text.pots == tuple(results.pot_lines(tr, hand, hand.names, hands=False))
    assert images.private_title(hand, 0, tr).startswith(f"{razz} · ")
    img = decode(images.private_png(hand, 0, tr=tr))
    marks_y = PRIVATE_TOP + images.BIG_H + 6 + images.BADGE_H // 2
    boxes = private_boxes(7)
    # ann's Ac 2d 3h 5s 7c 9d Kh: the low is A-2-3-5-7, the first five cards; nothing is marked high
    assert [close(pixel(img, (b[2] - 4, marks_y)), LOW_MARK, 8) for b in boxes] == [True] * 5 + [False] * 2
    assert not any(close(pixel(img, (b[0] + 4, marks_y)), HIGH_MARK, 8) for b in boxes)


def test_rule_g6_stud_pictures_name_stud_and_mark_no_low() -> None:
    hand = game_showdown(STUD_DOWN, Game.STUD)
    assert images.board_layout(table(), hand, names=hand.names).subtitle.startswith("Stud · ")
    text = images.showdown_text(hand, names=hand.names)
    assert text.title == "Stud · Showdown" and text.pots == ("Pot 6: ann wins",)
    assert all("low" not in rest.lower() for _, _, rest in text.rows), text.rows
    # bob's Ah 2h 3d 4c 6s 8d 8h would be an 8-6-4-3-2 low in Stud Hi-Lo: in Stud no card is marked low
    img = decode(images.private_png(hand, 1))
    marks_y = PRIVATE_TOP + images.BIG_H + 6 + images.BADGE_H // 2
    assert not any(close(pixel(img, (b[2] - 4, marks_y)), LOW_MARK, 8) for b in private_boxes(7))
    assert sum(close(pixel(img, (b[0] + 4, marks_y)), HIGH_MARK, 8) for b in private_boxes(7)) == 5


def test_rule_g8_an_idle_mix_board_shows_the_next_hands_game() -> None:
    t = table(hand_no=8)
    t.game, t.mix_hands = "mix", 8
    assert images.board_layout(t, None, names=[]).title == "Stud mix · Stud"
    t.game = "razz"
    assert images.board_layout(t, None, names=[], tr=RU).title == "Разз"
