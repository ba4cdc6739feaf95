"""The console in headless Chromium (run by scripts/console-browser.sh; see there for the environment it reads).

Signs in, finds the seeded user, opens the timeline and "as of" its first event (the earlier state), finalizes an
invoice and downloads its CSV, and is refused with a forged CSRF token and without a session. A screenshot of every
page goes to SCREENSHOTS; with DOCS set, the customer and invoice pages are also saved there (README screenshots).
Then, with CONSOLE_OPERATORS set, each operator signs in with a password and a one-time code (computed here, RFC 6238,
at CONSOLE_TOTP_TIME, the service's clock) and does one thing of its role: support redelivers a webhook, finance voids
the invoice, admin adds an operator, the auditor downloads the operator record; each is shown only the forms its role
may use. Exits non-zero at the first check that fails, saying which.
"""
import base64
import hashlib
import hmac
import os
import urllib.parse
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


def totp(uri, at):
    """The six-digit code of an otpauth:// URI's secret at `at` (RFC 6238: HMAC-SHA1, 30 s steps)."""
    secret = urllib.parse.parse_qs(urllib.parse.urlparse(uri).query)["secret"][0]
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, (int(at) // 30).to_bytes(8, "big"), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(int.from_bytes(digest[offset:offset + 4], 'big') & 0x7FFFFFFF) % 1_000_000:06d}"


def wait_for_download(suffix):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [name for name in os.listdir(DOWNLOADS) if name.endswith(suffix)]
        if found:
            return found
        time.sleep(0.2)  # polling the download folder (the browser gives no event for it), with a deadline
    return []


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
    invoice_url = driver.current_url
    driver.find_element(By.ID, "download-csv").click()
    csv = wait_for_download(".csv")
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

    # One operator per role, each signing in with a password and a one-time code, each doing one thing of its role.
    operators = {}
    for entry in filter(None, ENV.get("CONSOLE_OPERATORS", "").split(";")):
        role, name, password, uri = entry.split("|", 3)
        operators[role] = (name, password, uri)

    def operator_sign_in(role):
        name, password, uri = operators[role]
        driver.delete_all_cookies()
        driver.get(BASE + "/console/sign-in")
        driver.find_element(By.ID, "name").send_keys(name)
        driver.find_element(By.ID, "password").send_keys(password)
        driver.find_element(By.ID, "code").send_keys(totp(uri, ENV["CONSOLE_TOTP_TIME"]))
        navigate(driver.find_element(By.CSS_SELECTOR, "#operator-sign-in button"))
        check(title() == "Customers", f"{role} {name} signed in with a password and a one-time code")

    def forms(selector):
        return len(driver.find_elements(By.CSS_SELECTOR, selector))

    if "support" in operators:
        operator_sign_in("support")
        driver.get(BASE + "/console/operations/apps/" + ENV["CONSOLE_APP_ID"])
        check(forms("form[action$='/keys']") == 0, "support is not shown the form that creates keys")
        driver.get(BASE + ENV["CONSOLE_WEBHOOK_PATH"])
        navigate(driver.find_element(By.CSS_SELECTOR, "form[action$='/redeliver'] button"))
        check("redelivered=1" in driver.current_url, "support redelivered a webhook")
        shot("support-redelivered")
    if "finance" in operators:
        operator_sign_in("finance")
        driver.get(invoice_url)
        driver.find_element(By.CSS_SELECTOR, "form[action$='/void'] input[name=reason]").send_keys("browser test: wrong plan")
        navigate(driver.find_element(By.CSS_SELECTOR, "form[action$='/void'] button"))
        check(title() == "Confirm voiding", "voiding asks for confirmation")
        navigate(driver.find_element(By.CSS_SELECTOR, "button.danger"))
        check(title().startswith("Invoice ") and driver.current_url != invoice_url, "finance voided the invoice; its replacement opens")
        shot("finance-voided")
    if "admin" in operators:
        operator_sign_in("admin")
        driver.get(BASE + "/console/operators")
        driver.find_element(By.ID, "new-name").send_keys("made-in-browser")
        Select(driver.find_element(By.ID, "new-role")).select_by_value("auditor")
        driver.find_element(By.ID, "new-password").send_keys("a long enough password")
        navigate(driver.find_element(By.CSS_SELECTOR, "form[action='/console/operators'] button"))
        check("otpauth://" in driver.find_element(By.ID, "otpauth").text, "admin added an operator; its one-time password shown once")
        shot("admin-added-operator")
    if "auditor" in operators:
        operator_sign_in("auditor")
        driver.get(invoice_url)
        check(forms("form[action$='/void']") == 0, "the auditor is not shown the void form")
        driver.get(BASE + "/console/operators")
        check(forms("form[action='/console/operators']") == 0, "the auditor is not shown the form that adds operators")
        driver.get(BASE + "/console/operators/record")
        actions = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#actions tbody tr")]
        check(any("invoice.void" in text for text in actions), "the operator record shows the finance operator's void")
        shot("auditor-record")
        driver.find_element(By.LINK_TEXT, "Download the whole record (JSON lines)").click()
        record = wait_for_download(".jsonl")
        check(len(record) == 1, f"the auditor downloaded the operator record ({os.listdir(DOWNLOADS)})")
        with open(os.path.join(DOWNLOADS, record[0]), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        check(any('"action":"operator.add"' in line and "made-in-browser" in line for line in lines), "the download holds every action")
finally:
    driver.quit()
print("console browser test passed")
