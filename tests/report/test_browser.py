#!/usr/bin/python3
"""The report page in headless Chromium: every figure is drawn at a readable
size, no script error, and a screenshot is kept.

usage: test_browser.py INSEE WORKDIR DEFAULT_ARTIFACTS_DIR
The screenshot goes to $INSEE_TEST_ARTIFACTS/report.png (default: the third
argument). Without Chromium, chromedriver or python3-selenium the test fails,
unless INSEE_ALLOW_NO_BROWSER=1 (then it is skipped).
"""
import os
import shutil
import sys

from common import FIGURES, SKIP, check, insee, real_run


def no_browser(why):
    msg = (f"report browser test: {why}; install chromium, chromium-driver and "
           "python3-selenium (.ci/deps does), or set INSEE_ALLOW_NO_BROWSER=1 to skip")
    print(msg)
    sys.exit(SKIP if os.environ.get("INSEE_ALLOW_NO_BROWSER") == "1" else 1)


def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        no_browser(f"selenium cannot be imported ({e})")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.access("/usr/bin/chromedriver", os.X_OK) else None)
    if not chromium or not driver:
        no_browser(f"{'chromium' if not chromium else 'chromedriver'} is not installed")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=opts)


MEASURE = """
return Array.from(document.querySelectorAll('figure')).map(f => {
  const svg = f.querySelector('svg');
  const cap = f.querySelector('figcaption b');
  const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {title: cap ? cap.textContent : '', width: r.width, height: r.height,
          drawn: svg ? svg.querySelectorAll('path, polyline, polygon').length : 0};
});
"""


def main():
    binary, work, default_artifacts = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    d = browser()
    try:
        run = real_run(binary, work)
        page = os.path.join(work, "report.html")
        r = insee(binary, "report", run, "-o", page)
        check(r.returncode == 0, f"insee report exits 0: {r.stderr}")
        d.get("file://" + os.path.abspath(page))
        figs = d.execute_script(MEASURE)
        check([f["title"] for f in figs] == FIGURES, f"figure titles: {figs}")
        for f in figs:
            check(f["width"] >= 300 and f["height"] >= 200,
                  f"{f['title']}: drawn at {f['width']:.0f}x{f['height']:.0f} px, "
                  "at least 300x200")
            check(f["drawn"] > 0, f"{f['title']}: the svg holds drawn paths")
        errors = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        check(not errors, f"no errors in the browser console: {errors}")
        # The whole page in one picture.
        height = d.execute_script("return document.documentElement.scrollHeight")
        d.set_window_size(1280, min(int(height) + 100, 16000))
        artifacts = os.environ.get("INSEE_TEST_ARTIFACTS") or default_artifacts
        os.makedirs(artifacts, exist_ok=True)
        shot = os.path.join(artifacts, "report.png")
        if os.path.exists(shot):
            os.remove(shot)
        d.save_screenshot(shot)
        check(os.path.exists(shot) and os.path.getsize(shot) > 10 * 1024,
              f"screenshot {shot} kept, over 10 KB")
        print(f"ok: {len(figs)} figures; screenshot {shot} ({os.path.getsize(shot)} bytes)")
    finally:
        d.quit()


if __name__ == "__main__":
    main()
