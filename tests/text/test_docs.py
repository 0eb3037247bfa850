"""The docs live in the house: every link of the README and docs/ resolves inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
while not (ROOT / "pyproject.toml").exists():
    ROOT = ROOT.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_promised_pages_are_in_docs() -> None:
    for name in ["RULES.md", "FAIRNESS.md", "HAND_FORMAT.md", "POKERSTARS_FORMAT.md", "ARCHITECTURE.md", "README.md"]:
        assert (ROOT / "docs" / name).is_file(), name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/README.md)" in readme


def test_every_relative_link_resolves_inside_the_repository() -> None:
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # https: and the like
            resolved = (page.parent / target).resolve()
            assert resolved.exists(), f"{page.relative_to(ROOT)} links to {target!r}, which does not exist"
            assert resolved.is_relative_to(ROOT), f"{page.relative_to(ROOT)} links outside the repository: {target!r}"


def test_the_readme_names_no_path_outside_the_repository() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for outside in ["/work/", "../shared", "/home/", "/tmp/shared"]:
            assert outside not in text, f"{page.relative_to(ROOT)} names {outside!r}"
