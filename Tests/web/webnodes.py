"""Shared by the browser tests and measurements: real nodes serving the web app, and pages on them."""
import http.client, json, os, random, shutil, subprocess, sys, tempfile, time, traceback
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
PARLEY = os.environ.get("PARLEY_BIN") or str(ROOT / ".build/debug/parley")
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


class Nodes:
    """alice and bob, each a contact of the other, each serving the web app on a free loopback port;
    dave, a node without the web app who knows bob but whom bob does not know (so his invites wait
    for bob's answer); and carol, a key only (her .pub is uploaded in a page)."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="parley-web-"))
        self.processes = []
        base = random.randrange(21000, 31000, 10)
        for name in ["alice", "bob", "dave", "carol"]:
            subprocess.run([PARLEY, "keygen", name, "--dir", str(self.work / "keys")], check=True, capture_output=True)
        for index, name in enumerate(["alice", "bob", "dave"]):
            peers = [arg for other in range(3) if other != index for arg in ("--peer", f"127.0.0.1:{base + other}")]
            web = ["--web", "127.0.0.1:0"] if name != "dave" else []
            log = open(self.work / f"{name}.log", "w")
            self.processes.append(subprocess.Popen(
                [PARLEY, "node", "--key", str(self.work / f"keys/{name}.key"), "--data", str(self.data(name)),
                 "--listen", f"127.0.0.1:{base + index}", *peers, *web, "--log-level", "warning"],
                stdout=subprocess.DEVNULL, stderr=log))
        for name in ["alice", "bob"]:
            deadline = time.time() + 15
            while not (self.data(name) / "web-address").exists():
                if time.time() > deadline:
                    raise RuntimeError(f"{name}'s node did not serve the web app: {(self.work / f'{name}.log').read_text()}")
                time.sleep(0.1)
        deadline = time.time() + 15
        while not (self.data("dave") / "control.sock").exists() and time.time() < deadline:
            time.sleep(0.1)
        for me, other in [("alice", "bob"), ("bob", "alice"), ("dave", "bob")]:
            self.cli(me, "contacts", "add", str(self.work / f"keys/{other}.pub"), "--name", other)

    def data(self, name):
        return self.work / name

    def cli(self, name, *arguments):
        done = subprocess.run([PARLEY, *arguments, "--data", str(self.data(name))], check=True, capture_output=True, text=True)
        return done.stdout.strip()

    def login_url(self, name):
        return self.cli(name, "web")

    def api(self, name, request, values=None, connection=None):
        """POST /api/REQUEST on NAME's node with its token (as a script would); the result, parsed."""
        host = (self.data(name) / "web-address").read_text().strip()
        token = (self.data(name) / "web-token").read_text().strip()
        own = connection is None
        connection = connection or http.client.HTTPConnection(host, timeout=30)
        connection.request("POST", f"/api/{request}", body=json.dumps(values or {}),
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        body = json.loads(response.read() or b"null")
        if own:
            connection.close()
        if response.status != 200:
            raise RuntimeError(f"{request}: {response.status} {body}")
        return body

    def connection(self, name):
        """A kept-alive connection to NAME's web server, for many requests in a row."""
        return http.client.HTTPConnection((self.data(name) / "web-address").read_text().strip(), timeout=30)

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


class Trio(Nodes):
    """alice, bob and carol, each a contact of the others and each told where the others listen: the
    three members with running nodes that a secret poll needs. alice serves the web app; bob and
    carol are driven by the CLI. A subclass may list more `names` (each one after alice driven by the CLI)."""

    names = ["alice", "bob", "carol"]

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="parley-web-trio-"))
        self.processes = []
        names = self.names
        base = random.randrange(21000, 31000, 10)
        for name in names:
            subprocess.run([PARLEY, "keygen", name, "--dir", str(self.work / "keys")], check=True, capture_output=True)
        for index, name in enumerate(names):
            peers = [arg for other in range(len(names)) if other != index for arg in ("--peer", f"127.0.0.1:{base + other}")]
            web = ["--web", "127.0.0.1:0"] if name == "alice" else []
            log = open(self.work / f"{name}.log", "w")
            self.processes.append(subprocess.Popen(
                [PARLEY, "node", "--key", str(self.work / f"keys/{name}.key"), "--data", str(self.data(name)),
                 "--listen", f"127.0.0.1:{base + index}", *peers, *web, "--log-level", "warning"],
                stdout=subprocess.DEVNULL, stderr=log))
        deadline = time.time() + 15
        while not (self.data("alice") / "web-address").exists():
            if time.time() > deadline:
                raise RuntimeError(f"alice's node did not serve the web app: {(self.work / 'alice.log').read_text()}")
            time.sleep(0.1)
        for name in names[1:]:
            while not (self.data(name) / "control.sock").exists():
                if time.time() > deadline:
                    raise RuntimeError(f"{name}'s node did not start: {(self.work / f'{name}.log').read_text()}")
                time.sleep(0.1)
        for me in names:
            for other in names:
                if other != me:
                    self.cli(me, "contacts", "add", str(self.work / f"keys/{other}.pub"), "--name", other)

    def wait_for(self, name, *arguments, timeout=15):
        """Runs a CLI command until it succeeds (something has arrived), at most `timeout` seconds."""
        deadline = time.time() + timeout
        while True:
            try:
                return self.cli(name, *arguments)
            except subprocess.CalledProcessError as error:
                if time.time() > deadline:
                    raise RuntimeError(f"{name}: parley {' '.join(arguments)} kept failing: {error.stderr}") from error
                time.sleep(0.2)


def launch(playwright):
    """Debian's Chromium, as every browser test and measurement drives it."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def run_tests(nodes, tests, arguments, problems=None, clear_problems=False, logs=()):
    """Runs each function in `tests` as `function(*arguments(browser))` (`arguments` is called once,
    before the first test) in one Chromium against `nodes`, printing "ok   name" or "FAIL name" and its
    traceback for each, then "N passed, M failed"; exits 1 if any failed. With `problems` (the script
    errors and dialogs the pages recorded), a test also fails if any are recorded; `clear_problems`
    forgets them after a failure. After a failure, the end of each node's log named in `logs` is printed.
    Closes `nodes` at the end."""
    passed = failed = 0
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            given = arguments(browser)
            for function in tests:
                try:
                    function(*given)
                    if problems is not None:
                        # No script error, and no script a peer's text could have started (a dialog), anywhere.
                        assert not problems, problems
                    passed += 1
                    print(f"ok   {function.__name__}")
                except Exception:
                    failed += 1
                    print(f"FAIL {function.__name__}")
                    traceback.print_exc()
                    for name in logs:
                        log = (nodes.work / f"{name}.log").read_text()[-2000:]
                        if log:
                            print(f"--- {name}'s node log (end)\n{log}")
                    if clear_problems and problems is not None:
                        problems.clear()
            browser.close()
    finally:
        nodes.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def open_page(browser, nodes, name, width, height, problems):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"{name}: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"{name}: a script opened a dialog: {dialog.message}"), dialog.dismiss()))
    page.goto(nodes.login_url(name))
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    return page


def show_list(page):
    """On a narrow page the list and the chat take turns: back to the list if a chat is open."""
    if page.locator("#back").is_visible():
        page.click("#back")


def open_chat(page, title):
    show_list(page)
    page.locator(".chat-item", has_text=title).click()
    expect(page.locator("#chat-title")).to_have_text(title)
