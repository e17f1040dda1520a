"""A screenshot of a scan's report.html, as the README shows it: the page in headless
Chromium (Debian's chromium and chromium-driver), its worst root cause opened.

    python -m benchmarks.report_screenshot results/kernels/report.html results/report-html.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--size", default="1280,1000", help="window width,height in pixels")
    parser.add_argument("--open", type=int, default=1, metavar="N", help="open the Nth root cause (1: the worst)")
    args = parser.parse_args()
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--window-size={args.size}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(args.page.resolve().as_uri())
        row = driver.find_elements(By.CSS_SELECTOR, "tr.cause")[args.open - 1]
        row.click()
        driver.save_screenshot(str(args.output))
    finally:
        driver.quit()
    print(f"{args.output}: {args.page}, root cause {args.open} opened")


if __name__ == "__main__":
    main()
