"""``python -m bench.bot`` runs its scenarios and ends with the figure the issue reads.

Speed is not checked here (benchmarks print figures; tests check behaviour): only that the
benchmark still plays every scenario without a refused action or a bug logged by the bot,
prints CPU per action beside its rates, and keeps its last line's form.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "bench.bot", "--actions", "60", "--console-actions", "30",
                           "--tables", "6", "--table-actions", "12", "--paced-seconds", "0.5", "--rate", "200",
                           "--engine-repeat", "1", *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_the_sqlite_scenarios_run_clean_with_cpu_beside_every_rate() -> None:
    out = run_bench("--backend", "sqlite")
    rates = [ln for ln in out if re.search(r"[\d,]+/s  CPU +[\d.]+ [mµ]s/", ln)]
    assert len(rates) >= 6, out  # one table, console, 3 references, flat out, paced
    assert not any("actions not ok" in ln or "errors logged" in ln for ln in out), out
    assert "0 bot errors" in next(ln for ln in out if ln.startswith("summary")), out
    assert re.fullmatch(r"6 tables, sqlite: \d+ actions/s", out[-1]), out[-1]


def test_the_postgres_scenarios_run_clean_one_process_and_two(pg_dsn: str) -> None:
    out = run_bench("--backend", "postgres", "--pg-dsn", pg_dsn, "--processes", "2", "--console-actions", "0")
    assert any(ln.strip().startswith("asyncpg: INSERT") for ln in out), out  # the backend's reference
    together = next(ln for ln in out if ln.strip().startswith("2 processes together"))
    assert re.search(r" 72 actions .*/s  CPU", together), together  # 6 tables x 12 actions, in two processes
    assert not any("actions not ok" in ln or "a process logged" in ln for ln in out), out
    assert "0 bot errors" in next(ln for ln in out if ln.startswith("summary")), out
    assert re.fullmatch(r"6 tables, postgres: \d+ actions/s", out[-1]), out[-1]
