"""The web app in a real browser (Debian's Chromium, driven by Playwright): two nodes serve it,
alice's page and bob's page act on each other's screens live, peer text stays text, and the API
refuses a request without the token. Screenshots of both layouts go to docs/web/.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import json, os, random, shutil, subprocess, sys, tempfile, time, traceback, urllib.request, urllib.error
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
PARLEY = os.environ.get("PARLEY_BIN") or str(ROOT / ".build/debug/parley")
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "docs/web"


class Nodes:
    """alice and bob, each a contact of the other, each serving the web app on a free loopback port."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="parley-web-"))
        self.processes = []
        base = random.randrange(21000, 31000, 10)
        names = ["alice", "bob"]
        for name in names:
            subprocess.run([PARLEY, "keygen", name, "--dir", str(self.work / "keys")], check=True, capture_output=True)
        for index, name in enumerate(names):
            peer = base + (1 - index)
            log = open(self.work / f"{name}.log", "w")
            self.processes.append(subprocess.Popen(
                [PARLEY, "node", "--key", str(self.work / f"keys/{name}.key"), "--data", str(self.data(name)),
                 "--listen", f"127.0.0.1:{base + index}", "--peer", f"127.0.0.1:{peer}", "--web", "127.0.0.1:0",
                 "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=log))
        for name in names:
            deadline = time.time() + 15
            while not (self.data(name) / "web-address").exists():
                if time.time() > deadline:
                    raise RuntimeError(f"{name}'s node did not serve the web app: {(self.work / f'{name}.log').read_text()}")
                time.sleep(0.1)
        for me, other in [("alice", "bob"), ("bob", "alice")]:
            self.cli(me, "contacts", "add", str(self.work / f"keys/{other}.pub"), "--name", other)

    def data(self, name):
        return self.work / name

    def cli(self, name, *arguments):
        done = subprocess.run([PARLEY, *arguments, "--data", str(self.data(name))], check=True, capture_output=True, text=True)
        return done.stdout.strip()

    def login_url(self, name):
        return self.cli(name, "web")

    def origin(self, name):
        return "http://" + (self.data(name) / "web-address").read_text().strip()

    def close(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.work, ignore_errors=True)


def open_page(browser, nodes, name, width, height, problems):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"{name}: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"{name}: a script opened a dialog: {dialog.message}"), dialog.dismiss()))
    page.goto(nodes.login_url(name))
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    return page


def open_chat(page, title):
    page.locator(".chat-item", has_text=title).click()
    expect(page.locator("#chat-title")).to_have_text(title)


TESTS = []


def test(function):
    TESTS.append(function)
    return function


@test
def a_chat_and_a_poll_made_in_one_page_are_voted_on_in_the_other_and_both_show_the_tally_live(nodes, alice, bob, problems):
    # alice's page creates a group with bob
    alice.click("#new-chat")
    alice.fill(".chat-form input[name=title]", "Team lunch")
    alice.check(".chat-form input[value=bob]")
    alice.click(".chat-form button[type=submit]")
    expect(alice.locator("#chat-title")).to_have_text("Team lunch", timeout=5000)
    # and an options poll with the form
    alice.click("#new-poll")
    alice.fill(".poll-form input[name=question]", "Where?")
    options = alice.locator(".option-inputs input")
    options.nth(0).fill("Lake")
    options.nth(1).fill("Hills")
    alice.check(".poll-form input[name=allowAnswers]")
    alice.click(".poll-form button[type=submit]")
    expect(alice.locator(".poll .question", has_text="Where?")).to_be_visible(timeout=5000)
    # bob's page gets the chat (bob has alice as a contact, so the invite is taken) and votes
    expect(bob.locator(".chat-item", has_text="Team lunch")).to_be_visible(timeout=10_000)
    open_chat(bob, "Team lunch")
    card = bob.locator(".poll", has_text="Where?")
    expect(card).to_be_visible(timeout=5000)
    started = time.monotonic()
    card.locator(".option-row", has_text="Lake").locator("button.vote").click()
    # both pages show the same tally within a second, without a reload
    for page in (alice, bob):
        expect(page.locator(".poll", has_text="Where?").locator(".option-row", has_text="Lake").locator(".count")).to_have_text("1", timeout=1000)
    print(f"    vote clicked in bob's page to the bar in alice's: {time.monotonic() - started:.3f} s")
    expect(alice.locator(".poll", has_text="Where?").locator(".option-row", has_text="Hills").locator(".count")).to_have_text("0")
    expect(alice.locator(".poll", has_text="Where?").locator(".voters")).to_contain_text("bob (Lake)")


@test
def a_reaction_and_a_reply_made_in_one_page_appear_in_the_other(nodes, alice, bob, problems):
    alice.fill("#composer-text", "Shall we book a table?")
    alice.press("#composer-text", "Enter")
    message = bob.locator(".message", has_text="Shall we book a table?")
    expect(message).to_be_visible(timeout=5000)
    message.hover()
    message.locator(".pick", has_text="👍").click()
    expect(alice.locator(".message", has_text="Shall we book a table?").locator(".chip")).to_have_text("👍 1", timeout=5000)
    message.hover()
    message.locator("button", has_text="Reply").click()
    bob.fill("#composer-text", "Yes, for two")
    bob.press("#composer-text", "Enter")
    reply = alice.locator(".message", has_text="Yes, for two")
    expect(reply.locator(".quote")).to_contain_text("Shall we book a table?", timeout=5000)


@test
def a_message_that_looks_like_markup_is_shown_as_its_characters(nodes, alice, bob, problems):
    hostile = "<img src=x onerror=alert(1)>"
    alice.fill("#composer-text", hostile)
    alice.press("#composer-text", "Enter")
    shown = bob.locator(".message .body", has_text=hostile)
    expect(shown).to_be_visible(timeout=5000)
    assert shown.inner_text() == hostile, shown.inner_text()
    assert bob.locator("#messages img").count() == 0
    assert alice.locator("#messages img").count() == 0
    bob.wait_for_timeout(300)


@test
def a_request_without_the_token_is_refused(nodes, alice, bob, problems):
    request = urllib.request.Request(nodes.origin("alice") + "/api/chatList", data=b"{}", method="POST")
    try:
        urllib.request.urlopen(request)
        raise AssertionError("answered without the token")
    except urllib.error.HTTPError as error:
        assert error.code == 401, error.code
        assert json.loads(error.read())["error"]["kind"] == "unauthorized"
    # and a page opened without logging in says how to log in
    context = alice.context.browser.new_context()
    page = context.new_page()
    page.goto(nodes.origin("alice") + "/")
    expect(page.locator("#login")).to_be_visible(timeout=5000)
    context.close()


@test
def both_layouts_are_captured(nodes, alice, bob, problems):
    SHOTS.mkdir(parents=True, exist_ok=True)
    alice.wait_for_timeout(500)
    alice.screenshot(path=str(SHOTS / "wide-1280x800.png"))
    bob.screenshot(path=str(SHOTS / "narrow-390x844.png"))
    bob.click("#back")
    expect(bob.locator(".chat-item", has_text="Team lunch")).to_be_visible()
    bob.screenshot(path=str(SHOTS / "narrow-list-390x844.png"))


def main():
    nodes = Nodes()
    passed = failed = 0
    problems = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            alice = open_page(browser, nodes, "alice", 1280, 800, problems)
            bob = open_page(browser, nodes, "bob", 390, 844, problems)
            for function in TESTS:
                try:
                    function(nodes, alice, bob, problems)
                    # No script error, and no script a peer's text could have started (a dialog), anywhere.
                    assert not problems, problems
                    passed += 1
                    print(f"ok   {function.__name__}")
                except Exception:
                    failed += 1
                    print(f"FAIL {function.__name__}")
                    traceback.print_exc()
            browser.close()
    finally:
        nodes.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
