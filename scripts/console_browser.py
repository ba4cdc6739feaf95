"""The console in headless Chromium (run by scripts/console-browser.sh; see there for the environment it reads).

Signs in, finds the seeded user, opens the timeline and "as of" its first event (the earlier state), finalizes an
invoice and downloads its CSV, and is refused with a forged CSRF token and without a session. A screenshot of every
page goes to SCREENSHOTS; with DOCS set, the customer and invoice pages are also saved there (README screenshots).
Exits non-zero at the first check that fails, saying which.
"""
import base64
import os
import shutil
import sys
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = sys.argv[1].rstrip("/")
ENV = os.environ
SHOTS = ENV["SCREENSHOTS"]
DOCS = ENV.get("DOCS")
DOWNLOADS = os.path.join(SHOTS, "downloads")
os.makedirs(DOWNLOADS, exist_ok=True)

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"]:
    options.add_argument(argument)
options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")), options=options)
driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
step = 0


def shot(name):
    global step
    step += 1
    path = os.path.join(SHOTS, f"{step:02d}-{name}.png")
    driver.save_screenshot(path)
    print(f"screenshot {path}")
    return path


def check(condition, message):
    if not condition:
        shot("failed")
        print(f"FAILED: {message}\nat {driver.current_url}\n{driver.page_source[:3000]}", file=sys.stderr)
        driver.quit()
        sys.exit(1)
    print(f"ok: {message}")


def navigate(element):
    """Clicks something that loads another page, and waits until the browser has left this one."""
    driver.execute_script("window.consoleTestLeaving = 1")  # gone once another document has loaded

    def arrived(d):
        try:
            return d.execute_script("return window.consoleTestLeaving === undefined && document.readyState === 'complete'")
        except WebDriverException:  # between documents
            return False

    element.click()
    WebDriverWait(driver, 30).until(arrived)


def title():
    return driver.find_element(By.TAG_NAME, "h1").text


def document(name):
    """The whole page (up to 2,400 px high), for the README."""
    if DOCS:
        size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": min(size["width"], 1400), "height": min(size["height"], 2400), "scale": 1}
        image = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
        with open(os.path.join(DOCS, name), "wb") as handle:
            handle.write(base64.b64decode(image["data"]))


try:
    # Without a session the console sends to the sign-in page.
    driver.get(BASE + "/console/customers")
    check(title() == "Sign in", "without a session the console asks to sign in")
    shot("sign-in")

    driver.find_element(By.ID, "actor").send_keys("Browser test")
    driver.find_element(By.ID, "token").send_keys(ENV["LEDGER_ADMIN_TOKEN"])
    navigate(driver.find_element(By.CSS_SELECTOR, "#sign-in button"))
    check(title() == "Customers", "signed in, on the customers page")

    Select(driver.find_element(By.ID, "app")).select_by_value(ENV["CONSOLE_APP_ID"])
    driver.find_element(By.ID, "q").send_keys(ENV["CONSOLE_QUERY"])
    navigate(driver.find_element(By.CSS_SELECTOR, "#find button"))
    links = driver.find_elements(By.CSS_SELECTOR, "#found a")
    check([a.text for a in links] == [ENV["CONSOLE_USER"]], "the search finds the seeded user")
    shot("search")
    navigate(links[0])
    check(title() == "Customer " + ENV["CONSOLE_USER"], "the customer page opens")
    rows = driver.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")
    check(len(rows) >= 2, f"the timeline lists the user's events ({len(rows)})")
    check("Intact" in driver.find_element(By.ID, "chain").text, "the hash chain of the user's streams is intact")
    shot("customer")
    document("console-customer.png")

    # "As of" the first event: the earlier state, with the differences from now marked.
    navigate(driver.find_elements(By.CSS_SELECTOR, "#timeline a.as-of")[0])
    check(title().startswith("As of event"), "the as-of page opens")
    changed = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#as-of tr.changed")]
    check(any("not consumed" in text for text in changed), f"as of the first event the purchase was not consumed yet: {changed}")
    shot("as-of")

    # Finance: finalize the month (with its confirmation step), then download the CSV.
    driver.get(BASE + "/console/finance")
    check(len(driver.find_elements(By.CSS_SELECTOR, "svg")) >= 1, "finance shows charts")
    shot("finance")
    driver.find_element(By.ID, "finalize-month").send_keys(ENV["CONSOLE_MONTH"])
    Select(driver.find_element(By.ID, "finalize-account")).select_by_value(ENV["CONSOLE_ACCOUNT"])
    navigate(driver.find_element(By.CSS_SELECTOR, "form[action='/console/finance/finalize'] button"))
    check(title() == "Confirm finalizing", "finalizing asks for confirmation")
    shot("confirm-finalize")
    navigate(driver.find_element(By.CSS_SELECTOR, "button.danger"))
    check(title().startswith("Invoice "), "the finalized invoice opens")
    check("finalized" in driver.find_element(By.ID, "invoice-status").text, "the invoice is finalized")
    shot("invoice")
    document("console-invoice.png")
    driver.find_element(By.ID, "download-csv").click()
    deadline = time.monotonic() + 30
    csv = []
    while time.monotonic() < deadline:
        csv = [name for name in os.listdir(DOWNLOADS) if name.endswith(".csv")]
        if csv:
            break
        time.sleep(0.2)  # polling the download folder (the browser gives no event for it), with a deadline
    check(len(csv) == 1, f"the invoice's CSV was downloaded ({os.listdir(DOWNLOADS)})")
    with open(os.path.join(DOWNLOADS, csv[0]), encoding="utf-8") as handle:
        content = handle.read()
    check(ENV["CONSOLE_MONTH"] in content and "total" in content, "the CSV holds the invoice")

    # A forged CSRF token is refused.
    driver.get(BASE + "/console/finance")
    driver.execute_script("document.querySelectorAll('input[name=csrf]').forEach(i => i.value = 'forged')")
    driver.find_element(By.ID, "finalize-month").send_keys(ENV["CONSOLE_MONTH"])
    navigate(driver.find_element(By.CSS_SELECTOR, "form[action='/console/finance/finalize'] button"))
    check(title().startswith("403") and "CSRF" in driver.find_element(By.ID, "error").text, "a forged CSRF token is refused")
    shot("forged-csrf")

    # Signing out ends the session: the customer page is refused again.
    driver.get(BASE + "/console/operations")
    check(title() == "Operations", "operations opens")
    shot("operations")
    navigate(driver.find_element(By.ID, "sign-out"))
    check(title() == "Sign in", "signed out")
    driver.get(BASE + "/console/customers")
    check(title() == "Sign in", "after signing out the console asks to sign in again")
    shot("signed-out")
finally:
    driver.quit()
print("console browser test passed")
