"""``execverify view`` pages in headless Chromium (Debian's ``chromium`` and ``chromium-driver``):
step with the keyboard and check the marked line, the locals, the stack and the highlighted
questions against the trace; a 100,000-event trace loads and steps within a bound. Each test
saves a screenshot under pytest's tmp folder and prints its path."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="selenium is not installed: pip install 'execverify-data[test]'")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_view import CALL, LOOP, PROGRAM, make_release  # noqa: E402

from execverify_data import view  # noqa: E402
from execverify_data.questions import build  # noqa: E402
from execverify_data.trace import trace_call  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="Chromium is absent: install Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)
# Without the network flags Chromium stalls on a closed network (background fetches, component updates).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--window-size=1400,1000")

# What the page shows, read from its DOM (not from its embedded data).
SHOWN = """
const cell = td => td.firstChild ? td.firstChild.textContent : "";
return {
  step: Number(document.body.dataset.step), event: Number(document.body.dataset.event),
  line: Number((document.querySelector("#code .line.current") || {dataset: {line: -1}}).dataset.line),
  next: Number((document.querySelector("#code .line.next") || {dataset: {line: -1}}).dataset.line),
  locals: [...document.querySelectorAll("#locals tbody tr[data-var]")].map(tr => [
    tr.dataset.var, cell(tr.querySelector("td.val")), tr.querySelector("td.type").textContent,
    tr.querySelector("td.val .badge.na") !== null, tr.classList.contains("asked")]),
  stack: [...document.querySelectorAll("#stack li")].map(li => li.firstChild.textContent),
  active: [...document.querySelectorAll("#questions li.q.active")].map(li => Number(li.dataset.q)),
  renderMs: Number(document.body.dataset.renderMs),
};
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def open_page(browser, path: Path, timeout: float = 60) -> float:
    """Load ``path`` from a file:// URL; return the seconds until the page said it is ready."""
    start = time.perf_counter()
    browser.get(path.resolve().as_uri())
    WebDriverWait(browser, timeout).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    return time.perf_counter() - start


def shown(browser) -> dict:
    return browser.execute_script(SHOWN)


def press(browser, *keys: str) -> None:
    browser.find_element(By.TAG_NAME, "body").send_keys(*keys)


def screenshot(browser, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    browser.save_screenshot(str(path))
    assert path.is_file() and path.stat().st_size > 0 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {path}")
    return path


def no_console_errors(browser) -> None:
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def expected_locals(event) -> list[list]:
    return [[name, value.text, value.type, not value.askable] for name, value in event.locals.items()]


def write_page(tmp_path: Path, source: str, call: str, **options) -> tuple[Path, object]:
    trace = trace_call(source, call)
    path = tmp_path / "page.html"
    path.write_text(view.render_page(source, trace, call=call, **options), encoding="utf-8")
    return path, trace


def test_keyboard_steps_show_the_trace(browser, tmp_path):
    path, trace = write_page(tmp_path, PROGRAM, CALL)
    open_page(browser, path)
    events = trace.events
    for i, event in enumerate(events):
        now = shown(browser)
        assert (now["step"], now["event"], now["line"]) == (i, i, event.line), now
        assert now["next"] == (events[i + 1].line if i + 1 < len(events) else -1)
        assert [row[:4] for row in now["locals"]] == expected_locals(event)
        assert len(now["stack"]) == event.depth + 1 and now["stack"][0] == event.function
        if event.function == "scale" and event.line == 2 and event.occurrence == 1:
            screenshot(browser, tmp_path, "view-steps")  # inside the helper: two frames on the stack
        press(browser, Keys.ARROW_RIGHT)
    assert shown(browser)["step"] == len(events) - 1  # stays on the last step
    assert browser.find_element(By.ID, "stdout").text == "skip -1"
    press(browser, Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert shown(browser)["step"] == len(events) - 4
    press(browser, Keys.HOME)
    assert shown(browser)["step"] == 0
    press(browser, Keys.END)
    assert shown(browser)["line"] == events[-1].line
    assert any(row[3] for step in [shown(browser)] for row in step["locals"])  # the iterator is marked not askable
    no_console_errors(browser)


def test_questions_are_highlighted_on_their_step(browser, tmp_path):
    trace = trace_call(PROGRAM, CALL)
    verification = build(PROGRAM, CALL, seed=1, n_path=3, n_state=3, trace=trace).verification
    path, _ = write_page(tmp_path, PROGRAM, CALL, questions=verification)
    open_page(browser, path)
    data = view.page_data(PROGRAM, trace, call=CALL, questions=verification)
    asked = [q for q in data["questions"] if q["step"] is not None]
    assert {q["kind"] for q in asked} >= {"io", "path", "state"}
    for q in sorted(asked, key=lambda q: q["step"]):
        press(browser, Keys.HOME, *[Keys.ARROW_RIGHT] * q["step"])
        now = shown(browser)
        assert now["step"] == q["step"] and q["number"] in now["active"], (q, now)
        item = browser.find_element(By.CSS_SELECTOR, f'#questions li[data-q="{q["number"]}"]')
        assert item.find_element(By.CSS_SELECTOR, ".answer code").text == q["answer"]
        if q["kind"] == "state":
            row = next(r for r in now["locals"] if r[0] == q["var"])
            assert row[4] and f"{row[1]}; {row[2]}" == q["answer"]
            if not (tmp_path / "view-question.png").exists():
                screenshot(browser, tmp_path, "view-question")
        elif q["kind"] == "path":
            assert now["next"] == int(q["answer"])
            badge = browser.find_element(By.CSS_SELECTOR, f'#code .line[data-line="{q["answer"]}"] .badge')
            assert badge.text == f"Q{q['number']}: runs next"
        elif q["kind"] == "io":
            result = browser.find_element(By.ID, "result")
            assert "hit" in result.get_attribute("class") and q["answer"] in result.text
    press(browser, Keys.HOME)
    last = max(asked, key=lambda q: q["step"])
    browser.find_element(By.CSS_SELECTOR, f'#questions li[data-q="{last["number"]}"]').click()  # a click jumps to the step
    assert shown(browser)["step"] == last["step"]
    no_console_errors(browser)


def test_release_row_page(browser, tmp_path):
    release = make_release(tmp_path)
    path = view.view_row(release, "synth-0-0000001-trace-0", tmp_path / "row.html")
    open_page(browser, path)
    row = view.find_row(release, "synth-0-0000001-trace-0")
    assert browser.find_element(By.ID, "title").text == "synth-0-0000001-trace-0"
    items = browser.find_elements(By.CSS_SELECTOR, "#questions li.q")
    assert len(items) == len(json.loads(row["verification"])["questions"])
    assert not browser.find_elements(By.CSS_SELECTOR, "#questions .disagree")
    trace = trace_call(row["code"], row["call"])
    press(browser, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    now = shown(browser)
    assert now["line"] == trace.events[2].line and [r[:4] for r in now["locals"]] == expected_locals(trace.events[2])
    screenshot(browser, tmp_path, "view-row")
    no_console_errors(browser)


def test_script_text_in_values_stays_text_and_nothing_is_fetched(browser, tmp_path):
    source = "def f(s):\n    t = s + '</script><script>window.pwned = 1</script>'\n    return t\n"
    path, trace = write_page(tmp_path, source, "f('<b>x</b>')")
    open_page(browser, path)
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    press(browser, Keys.END)
    values = {row[0]: row[1] for row in shown(browser)["locals"]}
    assert values["t"] == trace.events[-1].locals["t"].text
    screenshot(browser, tmp_path, "view-escaping")
    no_console_errors(browser)


def test_100k_event_trace_loads_and_steps_within_bound(browser, tmp_path):
    call = "f(33332)"
    trace = trace_call(LOOP, call)
    assert len(trace.events) == 100_000
    verification = build(LOOP, call, seed=0, trace=trace).verification
    start = time.perf_counter()
    page = view.render_page(LOOP, trace, call=call, questions=verification)
    render_s = time.perf_counter() - start
    path = tmp_path / "big.html"
    path.write_text(page, encoding="utf-8")
    size = path.stat().st_size
    assert size < view.MAX_DATA_BYTES + 100_000
    load_s = open_page(browser, path)
    in_page_ms = float(browser.execute_script("return document.body.dataset.loadMs"))
    kept = view.page_data(LOOP, trace, call=call, questions=verification)["steps"]["event"]

    start = time.perf_counter()
    press(browser, *[Keys.ARROW_RIGHT] * 200)
    WebDriverWait(browser, 60).until(lambda d: shown(d)["step"] == 200)
    forward_s = time.perf_counter() - start
    start = time.perf_counter()
    press(browser, Keys.END, Keys.SHIFT, *[Keys.ARROW_LEFT] * 101, Keys.NULL)  # back across the tail into the sampled middle
    WebDriverWait(browser, 60).until(lambda d: shown(d)["step"] == len(kept) - 1 - 1010)
    back_s = time.perf_counter() - start
    now = shown(browser)
    event = trace.events[now["event"]]
    assert now["event"] == kept[now["step"]] and now["event"] < 99_000  # a sampled step of the middle
    assert now["line"] == event.line and [r[:4] for r in now["locals"]] == expected_locals(event)
    assert browser.find_element(By.ID, "gap").text.startswith("\u22ef")
    print(f"100,000 events: page {size:,} bytes ({len(kept):,} steps), rendered in {render_s:.2f} s, "
          f"loaded in {load_s:.2f} s ({in_page_ms:.0f} ms in the page's script), 200 steps forward in {forward_s:.2f} s, "
          f"End + 101 ten-step jumps back in {back_s:.2f} s, last step drawn in {now['renderMs']:.1f} ms")
    screenshot(browser, tmp_path, "view-100k")
    # bounds far above what an idle machine needs (about 0.3 s, 0.2 s, 1 s): a shared CI machine is slow
    assert load_s < 20 and forward_s < 30 and back_s < 30 and now["renderMs"] < 250
    no_console_errors(browser)


def test_exception_and_empty_traces_render(browser, tmp_path):
    from execverify_data.trace import Status, Trace

    source = "def f(xs):\n    n = len(xs)\n    return xs[n]\n"
    path, trace = write_page(tmp_path, source, "f([1])")
    assert trace.status is Status.EXCEPTION
    open_page(browser, path)
    press(browser, Keys.END)
    assert shown(browser)["line"] == 3
    assert browser.find_element(By.ID, "result").text.endswith("IndexError: list index out of range")
    screenshot(browser, tmp_path, "view-exception")
    empty = tmp_path / "empty.html"
    empty.write_text(view.render_page(source, Trace(Status.TIMEOUT), call="f([1])"), encoding="utf-8")
    open_page(browser, empty)
    assert "no events" in browser.find_element(By.ID, "step-info").text
    assert "The trace has no events (status timeout)." in browser.find_element(By.ID, "notices").text
    no_console_errors(browser)
