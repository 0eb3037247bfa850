"""The replayer page (issue 23) in a real browser: Debian's chromium, driven headless by Selenium through
Debian's chromedriver (nothing downloaded). Each page is opened from its file, stepped through every
street with the buttons and the arrow keys, and read back from the DOM: each seat's cards, the pot, the
equity line at an all-in, the showdown's pot lines and nets. A screenshot of every step is kept in
tests/artefacts/replayer/ (git-ignored), the showdown's as ``<hand>-showdown.png``.

Without chromium (``apt-get install chromium chromium-driver``) the test is skipped, saying so; in CI
(``CI=true``) it fails instead: CI installs them (.ci/run).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from replays import (
    all_in_hand,
    data_of,
    expected_frames,
    fake_equity,
    leaks,
    nets,
    page_of,
    pot_lines,
    split_hand,
)

from bot.core.i18n import translator
from bot.history.replayer import PAGE_BUDGET
from engine import Hand

ARTEFACTS = Path(__file__).resolve().parents[1] / "artefacts" / "replayer"
"""Where the screenshots are kept (tests/artefacts/ is git-ignored)."""
PHONE = (412, 915)
DESKTOP = (1100, 900)


def _browser_or_skip() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing = "selenium (pip install -e '.[dev]')"
    else:
        missing = ", ".join(name for name, path in (("chromium", chromium), ("chromedriver", driver)) if not path)
    if missing:
        why = f"the browser test needs {missing}: apt-get install chromium chromium-driver"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{why} (CI installs them: .ci/run)")
        pytest.skip(why)
    assert chromium is not None and driver is not None
    return chromium, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver = _browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    web = webdriver.Chrome(service=Service(driver), options=options)
    try:
        yield web
    finally:
        web.quit()


def _seen(web: Any) -> dict[str, Any]:
    """What the page shows now, read from the DOM."""
    from selenium.webdriver.common.by import By

    seats = web.find_elements(By.CSS_SELECTOR, "#seats .seat")
    cards = [[(c.get_attribute("data-card")) for c in seat.find_elements(By.CSS_SELECTOR, ".card")] for seat in seats]
    result = web.find_element(By.ID, "result")
    return {"title": web.find_element(By.ID, "streetname").text,
            "cards": [[None if c == "back" else c for c in row] for row in cards],
            "pot": web.find_element(By.ID, "pot").text,
            "equity": web.find_element(By.ID, "equity").text,
            "log": [li.text for li in web.find_elements(By.CSS_SELECTOR, "#log li")],
            "pots": [p.text for p in result.find_elements(By.CSS_SELECTOR, ".potline")] if result.is_displayed()
            else None,
            "nets": {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[1].text
                     for row in result.find_elements(By.TAG_NAME, "tr")} if result.is_displayed() else None,
            "step": web.find_element(By.TAG_NAME, "body").get_attribute("data-step")}


def _replay(web: Any, tmp_path: Path, *, name: str, hand: Hand, viewer: str,
            equity: Any = None) -> list[dict[str, Any]]:
    """Open the page, step forwards through it with the button, screenshot each step; then backwards with the
    arrow key, and check each step shows again what it showed going forwards."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = page_of(hand, viewer=viewer, equity=equity)
    assert len(page.encode()) < PAGE_BUDGET
    assert leaks(page, hand, viewer) == []  # the source holds no card the viewer did not see
    path = tmp_path / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    web.set_window_size(*DESKTOP)
    web.get(path.as_uri())
    steps = len(data_of(page)["hands"][0]["frames"])
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    forwards = []
    for step in range(steps):
        if step:
            web.find_element(By.ID, "next").click()
        seen = _seen(web)
        assert seen["step"] == str(step)
        forwards.append(seen)
        label = "showdown" if step == steps - 1 else f"{step}-{seen['title'].replace(' ', '-').lower()}"
        web.save_screenshot(str(ARTEFACTS / f"{name}-{label}.png"))
    assert web.find_element(By.ID, "next").get_attribute("disabled") is not None  # the end
    body = web.find_element(By.TAG_NAME, "body")
    for step in reversed(range(steps - 1)):
        body.send_keys(Keys.ARROW_LEFT)
        assert _seen(web) == forwards[step]
    assert web.find_element(By.ID, "prev").get_attribute("disabled") is not None
    web.set_window_size(*PHONE)  # the showdown on a phone's screen
    web.find_element(By.ID, "last").click()
    web.save_screenshot(str(ARTEFACTS / f"{name}-showdown-phone.png"))
    errors = [e for e in web.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors
    return forwards


def test_a_showdown_replays_street_by_street_in_a_browser(browser: Any, tmp_path: Path) -> None:
    hand = split_hand()
    seen = _replay(browser, tmp_path, name="split", hand=hand, viewer="ann")
    expected = expected_frames(hand, "ann")
    assert [s["title"] for s in seen] == ["Antes", "Third street", "Fourth street", "Fifth street", "Sixth street",
                                          "Seventh street", "Showdown"]
    assert [s["cards"] for s in seen] == [e["cards"] for e in expected]
    assert [s["pot"] for s in seen] == [f"Pot {e['pot']}" for e in expected]
    assert seen[2]["log"] == ["cat checks", "ann bets 5", "bob calls 5", "cat folds"]
    final = seen[-1]
    assert final["pots"] == pot_lines(hand) and "ann takes the low" in final["pots"][0]
    assert final["nets"] == {name: f"{net:+d}" if net else "0" for name, net in nets(hand).items()}
    assert any(line.startswith("bob shows") for line in final["log"])
    assert not any(s["equity"] for s in seen)


def test_an_all_in_shows_the_hands_face_up_and_the_equity_in_a_browser(browser: Any, tmp_path: Path) -> None:
    hand = all_in_hand()
    seen = _replay(browser, tmp_path, name="allin", hand=hand, viewer="bob", equity=fake_equity)
    expected = expected_frames(hand, "bob")
    assert [s["cards"] for s in seen] == [e["cards"] for e in expected]
    assert [s["pot"] for s in seen] == [f"Pot {e['pot']}" for e in expected]
    ann = hand.names.index("ann")
    assert seen[2]["title"] == "Fourth street"  # whose betting ended with bob and cat all in
    assert seen[1]["cards"][ann][0] is None and seen[2]["cards"][ann][0] is not None  # face up from then on
    assert [s["equity"] for s in seen[2:5]] == ["Equity: ann 61% · bob 27% · cat 12% · scoop ann 40%"] * 3
    assert not seen[1]["equity"] and not seen[-1]["equity"]
    assert seen[-1]["pots"] == pot_lines(hand) and len(seen[-1]["pots"]) == 2  # main and side pot


def test_several_hands_in_one_file_have_a_picker(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from bot.history.replayer import ReplayHand, replay_page

    page = replay_page([ReplayHand(number=7, hand=split_hand(), seats=(1, 2, 3), viewer="ann"),
                        ReplayHand(number=8, hand=all_in_hand(), seats=(1, 2, 3, 4), viewer="ann")],
                       tr=translator("ru"), equity=fake_equity)
    path = tmp_path / "two.html"
    path.write_text(page, encoding="utf-8")
    browser.set_window_size(*PHONE)
    browser.get(path.as_uri())
    picker = Select(browser.find_element(By.ID, "picker"))
    assert [o.text for o in picker.options] == ["Раздача №7", "Раздача №8"]
    assert picker.first_selected_option.text == "Раздача №8"  # the newest first
    assert browser.find_element(By.ID, "title").text.startswith("Раздача №8")
    picker.select_by_index(0)
    assert browser.find_element(By.ID, "title").text.startswith("Раздача №7")
    assert browser.find_element(By.ID, "streetname").text == "Анте"
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.ID, "streetname").text == "Вскрытие"
    browser.save_screenshot(str(ARTEFACTS / "picker-ru-phone.png"))
