#!/usr/bin/env python3
"""Finance's month-end, rehearsed through the HTTP API against a running `ledger serve`.

Creates accounts and apps, records tens of thousands of paying users as external purchases (plus test-environment
payments, repeat purchases, duplicates and users of the neighbouring months, none of which may add to the bill),
finalizes the month for every account, and checks the invoices against an independent computation of the seed's
graduated tiers, to the cent. It then checks that a second finalize creates nothing, that every invoice is
reproduced from the log, and that a paying user arriving late becomes an adjustment on the next month's draft.

    LEDGER_ADMIN_TOKEN=dev-admin-token swift run -c release ledger serve &
    python3 scripts/invoice_rehearsal.py --url http://127.0.0.1:8080 --token dev-admin-token --scale 1

Exits 1 on the first difference. Standard library only.
"""
import argparse
import concurrent.futures
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse
import uuid

# The seed's plan (SPEC §6): graduated bands of paying users, price per user in cents.
TIERS = [(1, 100, 0), (101, 1000, 1), (1001, 10000, 2), (10001, None, 3)]


def expected_total_cents(users):
    total = 0
    for low, high, price in TIERS:
        top = users if high is None else min(users, high)
        if top >= low:
            total += (top - low + 1) * price
    return total


class Client:
    """One keep-alive connection per thread."""

    def __init__(self, url):
        self.url = urllib.parse.urlparse(url)
        self.local = threading.local()

    def request(self, method, path, body=None, headers=None):
        for attempt in range(3):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = http.client.HTTPConnection(self.url.hostname, self.url.port or 80, timeout=120)
                self.local.connection = connection
            try:
                data = None if body is None else json.dumps(body).encode()
                connection.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
                response = connection.getresponse()
                payload = response.read()
                return response.status, (json.loads(payload) if payload else None)
            except (ConnectionError, http.client.HTTPException):
                connection.close()
                self.local.connection = None
                if attempt == 2:
                    raise


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def expect(status, answer, wanted, what):
    if status not in wanted:
        fail(f"{what}: HTTP {status} {answer}")
    return answer


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--token", default="dev-admin-token", help="the server's LEDGER_ADMIN_TOKEN")
    parser.add_argument("--month", default="2026-10", help="the month to bill (YYYY-MM), a month already ended")
    parser.add_argument("--scale", type=float, default=1.0, help="1 gives about 30,000 paying users")
    parser.add_argument("--clients", type=int, default=16, help="concurrent HTTP connections")
    parser.add_argument("--seed", type=int, default=2026)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    client = Client(arguments.url)
    admin = {"Authorization": "Bearer " + arguments.token}
    run = uuid.uuid4().hex[:8]
    year, month = map(int, arguments.month.split("-"))
    previous = f"{year - 1}-12" if month == 1 else f"{year}-{month - 1:02d}"
    following = f"{year + 1}-01" if month == 12 else f"{year}-{month + 1:02d}"

    # Accounts with their apps' paying users: bands 1 to 4, a user shared by two apps counts in both.
    layout = {"small": [150], "middle": [700, 600], "large": [9000, 6000, 5500], "free": [80]}
    accounts = {}
    for name, sizes in layout.items():
        account = expect(*client.request("POST", "/v1/admin/accounts", {"name": f"{name} {run}"}, admin), {201}, "create account")["id"]
        apps = []
        for index, size in enumerate(sizes):
            app = expect(*client.request("POST", "/v1/admin/apps", {
                "name": f"{name}-{index}", "account_id": account, "bundle_id": f"com.rehearsal.{run}.{name}{index}",
                "apple_app_id": rng.randrange(10**9), "transfer_policy": "transfer", "allow_xcode": False,
            }, admin), {201}, "create app")["id"]
            key = expect(*client.request("POST", f"/v1/admin/apps/{app}/keys", {"kind": "secret"}, admin), {201}, "create key")["key"]
            apps.append({"id": app, "key": key, "users": max(1, round(size * arguments.scale))})
        accounts[account] = apps

    # Every request to send; what counts is computed here, independently of the ledger.
    requests = []
    for apps in accounts.values():
        shared = [f"user-{run}-shared-{i}" for i in range(50)]
        for app in apps:
            users = shared[: min(len(shared), app["users"])]
            users += [f"user-{run}-{app['id']}-{i}" for i in range(app["users"] - len(users))]
            app["paying"] = set(users)
            for user in users:
                for _ in range(rng.choice([1, 1, 1, 2])):  # repeat purchases in the month count once
                    requests.append((app, user, arguments.month, "production", None))
            for i in range(max(1, app["users"] // 20)):  # not paying this month: test payments, other months
                requests.append((app, f"user-{run}-{app['id']}-test-{i}", arguments.month, "test", None))
                requests.append((app, f"user-{run}-{app['id']}-before-{i}", previous, "production", None))
                requests.append((app, f"user-{run}-{app['id']}-after-{i}", following, "production", None))
    rng.shuffle(requests)
    duplicates = rng.sample(range(len(requests)), len(requests) // 50)  # the same payment posted twice
    payments = [f"pay-{run}-{n}" for n in range(len(requests))]
    sends = [(requests[n], payments[n]) for n in range(len(requests))] + [(requests[n], payments[n]) for n in duplicates]

    def day(month_text):
        y, m = map(int, month_text.split("-"))
        return f"{y:04d}-{m:02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"

    def send(item):
        (app, user, month_text, environment, _), payment = item
        status, answer = client.request("POST", f"/v1/users/{urllib.parse.quote(user, safe='')}/external-purchases", {
            "payment_id": payment, "provider": "stripe", "product_id": "pro_month", "product_type": "non_renewing",
            "price": {"amount_milliunits": 4990, "currency": "USD"}, "purchased_at": day(month_text),
            "expires_at": None, "environment": environment,
        }, {"Authorization": "Bearer " + app["key"]})
        return status, answer

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(arguments.clients) as pool:
        for status, answer in pool.map(send, sends):
            if status not in (200, 201):
                fail(f"external purchase: HTTP {status} {answer}")
    elapsed = time.monotonic() - started
    print(f"recorded {len(sends):,} purchase requests ({len(duplicates):,} duplicates) in {elapsed:.1f} s, "
          f"{len(sends) / elapsed:,.0f}/s with {arguments.clients} clients")

    # Month end.
    started = time.monotonic()
    results = expect(*client.request("POST", "/v1/admin/invoices", {"month": arguments.month}, admin), {200}, "finalize")["results"]
    print(f"finalized {arguments.month} for every account in {time.monotonic() - started:.1f} s")
    invoices = {r["invoice"]["account_id"]: r["invoice"] for r in results if r["invoice"]["account_id"] in accounts}
    for account, apps in accounts.items():
        invoice = invoices.get(account) or fail(f"no invoice for account {account}")
        users = sum(len(app["paying"]) for app in apps)
        content = invoice["content"]
        lines = {line["app_id"]: line["paying_users"] for line in content["apps"]}
        for app in apps:
            if lines.get(app["id"]) != len(app["paying"]):
                fail(f"app {app['id']}: {len(app['paying'])} paying users, the invoice says {lines.get(app['id'])}")
        total = content["total_minor"]
        if content["paying_users"] != users or total != expected_total_cents(users):
            fail(f"account {account}: {users} paying users should cost {expected_total_cents(users)} cents, the invoice says {total}")
        print(f"  {account}: {users:,} paying users over {len(apps)} apps → {total / 100:,.2f} USD, "
              f"invoice {invoice.get('number')}")

    again = expect(*client.request("POST", "/v1/admin/invoices", {"month": arguments.month}, admin), {200}, "second finalize")["results"]
    for result in again:
        if result["created"]:
            fail(f"the second finalize created invoice {result['invoice']['id']}")
        first = invoices.get(result["invoice"]["account_id"])
        if first and first != result["invoice"]:
            fail(f"the second finalize changed invoice {first['id']}")
    for invoice in invoices.values():
        proof = expect(*client.request("GET", f"/v1/admin/invoices/{invoice['id']}/reproduction", None, admin), {200}, "reproduce")
        if not (proof["reproduced"] and proof["stored_content_matches_hash"]):
            fail(f"invoice {invoice['id']} is not reproduced: {proof}")
    print("a second finalize changed nothing; every invoice is reproduced from the log")

    # A paying user of the finalized month arrives late: an adjustment on the next month, the invoice unchanged.
    account, apps = next(iter(accounts.items()))
    billed = sum(len(app["paying"]) for app in apps)
    late = (apps[0], f"user-{run}-late", arguments.month, "production", None)
    status, answer = send((late, f"pay-{run}-late"))
    expect(status, answer, {201}, "late purchase")
    draft = expect(*client.request("GET", f"/v1/admin/invoice-drafts?account_id={account}&month={following}", None, admin),
                   {200}, "next month's draft")
    if not any(a["month"] == arguments.month and a["app_id"] == apps[0]["id"] and a["users"] == 1
               and a["amount_minor"] == expected_total_cents(billed + 1) - expected_total_cents(billed)
               for a in draft["adjustments"]):
        fail(f"the late user is not an adjustment on {following}'s draft: {json.dumps(draft)[:400]}")
    unchanged = expect(*client.request("GET", f"/v1/admin/invoices/{invoices[account]['id']}", None, admin), {200}, "show")
    if unchanged != invoices[account]:
        fail("the finalized invoice changed after a late user")
    print(f"a late paying user is an adjustment on {following}'s draft; the finalized invoice is unchanged")
    print("OK")


if __name__ == "__main__":
    main()
