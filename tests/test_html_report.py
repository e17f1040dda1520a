"""report.html in a real browser: Debian's Chromium, headless, driven by Selenium through
Debian's ChromeDriver (`make test` installs both when missing). The page of a scan of
tests/repo loads, its table sorts, and a root cause opens to its source and witness."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TESTS, line_of

CHROMIUM, CHROMEDRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or \
    "/usr/bin/chromedriver"
REPO = TESTS / "repo"
SMOOTH = REPO / "src/stencil/smooth.cu"
pytestmark = [pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                                 reason="needs Debian's chromium and chromium-driver (make test installs them)"),
              pytest.mark.xdist_group("html")]  # one worker scans and opens the browser once


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("html") / "scan"
    result = subprocess.run([sys.executable, "-m", "simulee", "scan", REPO, "-o", folder, "--jobs", "2",
                             "--step-limit", "20000", "-q"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stderr
    return folder / "report.html"


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def column(browser, name: str) -> list[str]:
    """The cells of a column of the root-cause table, top to bottom."""
    from selenium.webdriver.common.by import By

    headers = [th.text.strip(" ▲▼") for th in browser.find_elements(By.CSS_SELECTOR, "#causes thead th")]
    index = headers.index(name) + 1
    return [td.text for td in browser.find_elements(By.CSS_SELECTOR, f"#causes tr.cause td:nth-child({index})")]


def test_the_page_loads_with_every_root_cause_and_its_plots(browser, page):
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    assert browser.title == "Simulee: repo"
    assert "8 of 8 kernels checked, 8 root causes (5 errors, 3 warnings) from 9 findings" in \
        browser.find_element(By.ID, "headline").text
    assert column(browser, "severity") == ["error"] * 5 + ["warning"] * 3  # worst first
    assert column(browser, "kernels")[column(browser, "where").index("src/templates/pairs.cu:6")] == "2"
    plots = browser.find_elements(By.CSS_SELECTOR, ".plots svg")
    assert len(plots) == 3 and all(plot.find_elements(By.TAG_NAME, "rect") for plot in plots)  # types, time, verdicts
    assert not any(detail.is_displayed() for detail in browser.find_elements(By.CSS_SELECTOR, "tr.detail"))


def test_each_kernels_verdict_opens_on_a_click(browser, page):
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    verdicts = browser.find_element(By.ID, "verdicts")
    rows = verdicts.find_elements(By.CSS_SELECTOR, "tbody tr, tr")
    assert not any(row.is_displayed() for row in rows[1:])
    verdicts.find_element(By.TAG_NAME, "summary").click()
    shown = {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[2].text
             for row in verdicts.find_elements(By.TAG_NAME, "tr") if row.find_elements(By.TAG_NAME, "td")}
    assert len(shown) == 8 and shown["divide"] == "proved" and shown["add_right"] == "race"


def test_a_click_on_a_column_sorts_by_it_both_ways(browser, page):
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    instances = next(th for th in browser.find_elements(By.CSS_SELECTOR, "#causes thead th")
                     if th.text == "instances")
    instances.click()
    ascending = [int(value) for value in column(browser, "instances")]
    assert ascending == sorted(ascending) and len(set(ascending)) > 2
    instances.click()
    assert [int(value) for value in column(browser, "instances")] == sorted(ascending, reverse=True)
    browser.find_element(By.XPATH, "//th[text()='where']").click()
    where = column(browser, "where")
    assert where == sorted(where, key=lambda text: (text.split(":")[0], int(text.split(":")[1])))


def test_an_opened_root_cause_shows_its_source_witness_and_kernels(browser, page, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    row = next(row for row in browser.find_elements(By.CSS_SELECTOR, "tr.cause")
               if "src/stencil/smooth.cu:10" in row.text)
    row.click()
    detail = row.find_element(By.XPATH, "following-sibling::tr[1]")
    assert detail.is_displayed() and row.get_attribute("aria-expanded") == "true"
    hits = [span.text for span in detail.find_elements(By.CSS_SELECTOR, "pre.source span.hit")]
    write, read = line_of(SMOOTH, "tile[threadIdx.x] = in"), line_of(SMOOTH, "float left = tile")
    assert [int(hit.split("|")[0]) for hit in hits] == [write, read]
    assert "tile[threadIdx.x] = in[clamp_index(i, n)];" in hits[0]
    assert "Witness: block (" in detail.text and "Launch: grid (" in detail.text
    assert "In 1 kernel" in detail.text and "smooth" in detail.text
    browser.save_screenshot(str(tmp_path / "report.png"))
    row.click()
    assert not detail.is_displayed()
