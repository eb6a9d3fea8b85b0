"""The dataset card as the Hub shows it: markdown (GFM tables) -> HTML -> headless Chromium.

A small release is built with ``execverify build-release --json``; its ``README.md`` (YAML front
matter removed: the Hub shows that as metadata, not as text) is converted with markdown-it-py
(CommonMark + GFM tables), opened in headless Chromium beside the release's images, and checked
on the DOM Chromium built: every table and image is there, every image loaded, no literal
``&lt;`` shows, no stray blockquote, one field table per distinct schema, one precision for the Spearman values.
A screenshot is written (``card.png`` in the test's folder, or under ``$CARD_SCREENSHOT_DIR``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("datasets")
pytest.importorskip("matplotlib")
markdown_it = pytest.importorskip("markdown_it")

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome")) if p), None)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--hide-scrollbars", "--virtual-time-budget=10000"]

# Runs after load: the facts the test checks, written into the page for --dump-dom.
REPORT_SCRIPT = """
<script>
window.addEventListener("load", () => {
  const images = [...document.images].map(i => ({src: i.getAttribute("src"), ok: i.complete && i.naturalWidth > 0,
                                                 width: i.naturalWidth}));
  const cells = [...document.querySelectorAll("td code")].map(c => c.textContent);
  const report = {images, tables: document.querySelectorAll("table").length,
                  blockquotes: document.querySelectorAll("blockquote").length,
                  titles: [...document.querySelectorAll("table")].map(t => t.previousElementSibling.textContent),
                  entity_shown: document.body.innerText.includes("&lt;"),
                  typed_cells: cells.filter(t => t.includes("<")).length, text: document.body.innerText};
  const pre = document.createElement("pre");
  pre.id = "report";
  pre.textContent = JSON.stringify(report);
  document.body.appendChild(pre);
});
</script>
"""
STYLE = ("<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;font-size:14px}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}"
         "code{background:#f3f3f3}#report{display:none}</style>")


def card_html(readme: str, base: Path) -> str:
    body = readme.split("\n---\n", 1)[1] if readme.startswith("---\n") else readme
    md = markdown_it.MarkdownIt("commonmark", {"html": False}).enable("table")
    return (f'<!doctype html><html><head><meta charset="utf-8"><base href="{base.as_uri()}/">{STYLE}</head>'
            f"<body>{md.render(body)}{REPORT_SCRIPT}</body></html>")


def chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = tmp_path_factory.mktemp("card")
    out = folder / "rel"
    done = subprocess.run(
        [sys.executable, "-m", "execverify_data", "build-release", "--release-version", "0.0.1", "--n", "260", "--seed", "1",
         "--shard-size", "10", "--workers", "2", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=600, cwd=folder, env=dict(os.environ, OMP_NUM_THREADS="1"), check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads(done.stdout)


@pytest.mark.slow
def test_build_release_json_summary(release):
    out, summary = release
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert summary["out"] == str(out) and summary["files"] == len(manifest["files"])
    assert summary["total_rows"] == manifest["total_rows"] and summary["rows"] == manifest["rows"]
    assert {"timing", "verification", "decontamination", "version"} <= set(summary)


@pytest.mark.slow
def test_card_markdown(release):
    out, _ = release
    text = (out / "README.md").read_text()
    assert "&lt;" not in text and "`list<item: string>`" in text
    titles = re.findall(r"^\*\*(`[^\n]*)\*\*$", text, flags=re.M)
    assert titles == ["`io`, `oi`, `trace` (and `default`, the `trace` config)", "`sft`", "`codegen`"]
    assert not re.search(r"^>", text, flags=re.M)  # a line starting with ">" is a blockquote
    levels = re.findall(r"^\| \d \| [\d,]+ \| (\S+) \|$", text, flags=re.M)
    assert levels and all(re.fullmatch(r"\d+(\.5)?", m) for m in levels), levels  # medians: 3, 4.5, never 3.0
    rhos = re.search(r"Spearman correlation with the level is (\S+) and with trace\s+length (\S+)\.", text)
    assert rhos and all(re.fullmatch(r"-?\d\.\d{3}", r) for r in rhos.groups()), rhos


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (CI installs Debian's chromium in .ci/run)")
def test_card_rendered_in_chromium(release, tmp_path):
    out, _ = release
    page = tmp_path / "card.html"
    page.write_text(card_html((out / "README.md").read_text(), out), encoding="utf-8")
    done = chromium(["--dump-dom", page.as_uri()], tmp_path / "profile-dom")
    found = re.search(r'<pre id="report">(.*?)</pre>', done.stdout, flags=re.S)
    assert found, done.stderr[-2000:]
    import html

    report = json.loads(html.unescape(found.group(1)))
    separators = re.findall(r"^\| --- \|", (out / "README.md").read_text(), flags=re.M)
    assert report["tables"] == len(separators) == 8  # configs, 3 field tables, levels, buckets, naturalness, decontamination
    assert [i["src"] for i in report["images"]] == ["images/level_distribution.png", "images/difficulty_distribution.png",
                                                    "images/trace_length_distribution.png", "images/catalog_coverage.png"]
    assert all(i["ok"] and i["width"] == 600 for i in report["images"]), report["images"]
    assert not report["entity_shown"]
    assert report["blockquotes"] == 0  # a wrapped line that starts with ">=" turns into a quote
    assert report["typed_cells"] >= 3 * 2  # list<...> and struct<...> in each field table, shown as plain "<"
    assert "list<item: string>" in report["text"]
    assert report["titles"][1:4] == ["io, oi, trace (and default, the trace config)", "sft", "codegen"]  # after "Configs"

    shots = Path(os.environ.get("CARD_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "card.png"
    done = chromium([f"--screenshot={shot}", "--window-size=1000,7000", page.as_uri()], tmp_path / "profile-shot")
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", done.stderr[-2000:]
    assert shot.stat().st_size > 50_000
