"""The web app over TLS in a real browser (Debian's Chromium, driven by Playwright): alice's node serves it
with --web-tls on loopback (as on a LAN address, with its self-signed certificate, which the browser is
told to accept); bob's node has no web app and is driven by the CLI. The page loads over https, its
WebSocket is wss, a message bob sends appears live, and one typed in the page reaches bob.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import random, subprocess, tempfile, time
from pathlib import Path

from playwright.sync_api import expect

from webnodes import PARLEY, Nodes, open_chat, run_tests


class TLSPair(Nodes):
    """alice (web app over TLS) and bob (CLI only), each a contact of the other. Its `cli` and `close`
    are Nodes'."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="parley-web-tls-"))
        self.processes = []
        base = random.randrange(21000, 31000, 10)
        for name in ["alice", "bob"]:
            subprocess.run([PARLEY, "keygen", name, "--dir", str(self.work / "keys")], check=True, capture_output=True)
        for index, name in enumerate(["alice", "bob"]):
            web = ["--web", "127.0.0.1:0", "--web-tls"] if name == "alice" else []
            self.processes.append(subprocess.Popen(
                [PARLEY, "node", "--key", str(self.work / f"keys/{name}.key"), "--data", str(self.work / name),
                 "--listen", f"127.0.0.1:{base + index}", "--peer", f"127.0.0.1:{base + 1 - index}", *web, "--log-level", "warning"],
                stdout=open(self.work / f"{name}.out", "w"), stderr=open(self.work / f"{name}.log", "w")))
        deadline = time.time() + 15
        for name, ready in [("alice", "web-address"), ("bob", "control.sock")]:
            while not (self.work / name / ready).exists():
                if time.time() > deadline:
                    raise RuntimeError(f"{name}'s node did not start: {(self.work / f'{name}.log').read_text()}")
                time.sleep(0.1)
        for me, other in [("alice", "bob"), ("bob", "alice")]:
            self.cli(me, "contacts", "add", str(self.work / f"keys/{other}.pub"), "--name", other)

    def wait_for(self, name, *arguments, contains, timeout=15):
        deadline = time.time() + timeout
        while True:
            output = self.cli(name, *arguments)
            if contains in output:
                return output
            if time.time() > deadline:
                raise RuntimeError(f"{name}: parley {' '.join(arguments)} never showed {contains!r}: {output}")
            time.sleep(0.2)


def the_page_works_over_https_and_its_websocket_over_wss(nodes, browser, problems):
    login = nodes.cli("alice", "web")
    assert login.startswith("https://127.0.0.1:"), login
    origin = login.split("/login")[0]
    # The certificate is self-signed: a person compares its fingerprint; the test accepts it.
    context = browser.new_context(viewport={"width": 1280, "height": 800}, ignore_https_errors=True)
    page = context.new_page()
    sockets = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(login)
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    assert page.url.startswith(origin + "/"), page.url
    assert sockets and all(url.startswith("wss://") for url in sockets), sockets
    # The session cookie is never sent over plain HTTP
    assert context.cookies() and all(cookie["secure"] for cookie in context.cookies()), context.cookies()

    # bob makes a chat with alice and writes in it: the page shows it live, through the wss socket
    chat = nodes.cli("bob", "chat", "create", "Sealed", "--member", "alice")
    nodes.wait_for("alice", "chat", "list", contains="Sealed")
    open_chat(page, "Sealed")
    nodes.cli("bob", "send", chat, "sent over UDP, shown over TLS")
    expect(page.locator(".message", has_text="sent over UDP, shown over TLS")).to_be_visible(timeout=10_000)

    # and what alice types in the page reaches bob
    page.fill("#composer-text", "typed in an https page")
    page.press("#composer-text", "Enter")
    nodes.wait_for("bob", "messages", chat, "--json", contains="typed in an https page")
    context.close()


def main():
    nodes = TLSPair()
    problems = []
    run_tests(nodes, [the_page_works_over_https_and_its_websocket_over_wss], lambda browser: (nodes, browser, problems),
              problems=problems, logs=["alice", "bob"])


if __name__ == "__main__":
    main()
