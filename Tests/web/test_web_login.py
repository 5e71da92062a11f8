"""The web app's login in a real browser (Debian's Chromium, driven by Playwright), against real nodes:
the printed link works once and leaves no code in the address bar; another web server on 127.0.0.1
that the same browser visits gets neither the token nor anything it can use; two nodes on one host
stay logged in side by side; a node restart keeps the login; logout and `parley web --revoke` end it,
and the open page says so.

Run by Tests/web/run.sh. Prints one "N passed, M failed" line.
"""
import http.server, json, re, subprocess, threading

from playwright.sync_api import expect

from webnodes import Nodes, run_tests

TESTS = []


def test(function):
    TESTS.append(function)
    return function


class Recorder:
    """A second web server on 127.0.0.1 (port 0) that keeps every request's headers."""

    def __init__(self):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                received.append({"path": self.path, "headers": dict(self.headers.items())})
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<!doctype html><title>another local app</title><p>hello")

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self):
        self.server.shutdown()


def log_in(browser, nodes, name):
    """A fresh browser context logged in to NAME's node with the link `parley web` prints."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(nodes.login_url(name))
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    return context, page


def session_of(page, nodes, name):
    """The page's session as the browser holds it: (cookie name, id) and the proof in localStorage."""
    cookie_name = "parley_" + nodes.cli(name, "status", "--json").split('"peer":"')[1][:16]
    cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
    return cookie_name, cookies[cookie_name], page.evaluate("localStorage.getItem('parley-session-proof')")


def node_request(nodes, name, path, headers):
    """POST PATH on NAME's node as anyone on this machine could send it; the status."""
    connection = nodes.connection(name)
    connection.request("POST", path, body="{}", headers={"Content-Type": "application/json", **headers})
    status = connection.getresponse().status
    connection.close()
    return status


@test
def the_printed_link_works_once_and_leaves_no_code_in_the_address_bar(browser, nodes):
    link = nodes.login_url("alice")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/login\?code=[0-9a-f]{64}", link), link
    token = (nodes.data("alice") / "web-token").read_text().strip()
    assert token not in link
    context = browser.new_context()
    page = context.new_page()
    before = page.evaluate("history.length")
    page.goto(link)
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    assert page.url == nodes.origin("alice") + "/", page.url
    # the page replaced the login's history entry: going back skips the code
    assert page.evaluate("history.length") == before + 1, page.evaluate("history.length")
    page.go_back()
    assert "code=" not in page.url, page.url
    # the same link in another browser: a page that says what to do, not JSON
    other = browser.new_context()
    again = other.new_page()
    response = again.goto(link)
    assert response.status == 403, response.status
    expect(again.locator("body")).to_contain_text("does not work any more")
    expect(again.locator("pre")).to_have_text("parley web --data DATA")
    assert not other.cookies()
    other.close()
    context.close()


@test
def another_local_server_the_browser_visits_gets_no_token_and_nothing_it_can_use(browser, nodes):
    recorder = Recorder()
    try:
        context, page = log_in(browser, nodes, "alice")
        cookie_name, session_id, proof = session_of(page, nodes, "alice")
        other = context.new_page()
        other.goto(recorder.url)
        other.goto(recorder.url + "again")
        assert len(recorder.received) >= 2, recorder.received
        seen = json.dumps(recorder.received)
        token = (nodes.data("alice") / "web-token").read_text().strip()
        assert token not in seen
        assert proof not in seen
        # Cookies ignore ports, so the browser does send the session cookie: alone it opens nothing
        cookie = recorder.received[-1]["headers"].get("Cookie", "")
        assert f"{cookie_name}={session_id}" in cookie, cookie
        assert node_request(nodes, "alice", "/api/chatList", {"Cookie": cookie}) == 401
        assert node_request(nodes, "alice", "/api/chatList", {"Authorization": f"Bearer {session_id}"}) == 401
        # while the page's own requests, with the proof, go through
        assert node_request(nodes, "alice", "/api/chatList", {"Cookie": cookie, "Authorization": f"Session {proof}"}) == 200
        context.close()
    finally:
        recorder.close()


@test
def two_nodes_on_one_host_stay_logged_in_side_by_side_in_one_browser(browser, nodes):
    context = browser.new_context()
    pages = {}
    for name in ["alice", "bob"]:
        pages[name] = context.new_page()
        pages[name].goto(nodes.login_url(name))
        expect(pages[name].locator("#connection")).to_have_text("live", timeout=10_000)
    for name, page in pages.items():
        page.reload()
        expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        expect(page.locator("#me")).to_contain_text(name)
        expect(page.locator("#login")).to_be_hidden()
    names = sorted(cookie["name"] for cookie in context.cookies())
    assert len(names) == 2 and names[0] != names[1], names
    context.close()


@test
def a_node_restart_keeps_the_browser_logged_in(browser, nodes):
    context, page = log_in(browser, nodes, "alice")
    address = (nodes.data("alice") / "web-address").read_text().strip()
    process = nodes.processes[0]
    arguments = [address if argument == "127.0.0.1:0" else argument for argument in process.args]
    process.terminate()
    process.wait(timeout=10)
    expect(page.locator("#connection")).not_to_have_text("live", timeout=10_000)
    nodes.processes[0] = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=open(nodes.work / "alice.log", "a"))
    expect(page.locator("#connection")).to_have_text("live", timeout=15_000)
    expect(page.locator("#login")).to_be_hidden()
    context.close()


@test
def logout_ends_the_session_and_the_page_says_so(browser, nodes):
    context, page = log_in(browser, nodes, "alice")
    cookie_name, session_id, proof = session_of(page, nodes, "alice")
    page.click("#log-out")
    expect(page.locator("#logged-out")).to_be_visible(timeout=5000)
    expect(page.locator("#logged-out")).to_contain_text("parley web")
    assert page.evaluate("localStorage.getItem('parley-session-proof')") is None
    assert not [cookie for cookie in context.cookies() if cookie["name"] == cookie_name]
    headers = {"Cookie": f"{cookie_name}={session_id}", "Authorization": f"Session {proof}"}
    assert node_request(nodes, "alice", "/api/chatList", headers) == 401
    context.close()


@test
def revoke_ends_every_session_at_once_and_the_open_pages_show_the_login(browser, nodes):
    context, page = log_in(browser, nodes, "alice")
    cookie_name, session_id, proof = session_of(page, nodes, "alice")
    old_token = (nodes.data("alice") / "web-token").read_text().strip()
    line = nodes.cli("alice", "web", "--revoke")
    assert re.fullmatch(r"revoked: \d+ web sessions? ended in the running node, and a new token is in .*web-token", line), line
    # the open page: its WebSocket closes, and the page shows the login
    expect(page.locator("#login")).to_be_visible(timeout=10_000)
    assert page.evaluate("""fetch('/api/chatList', {method: 'POST', body: '{}',
        headers: {Authorization: 'Session ' + localStorage.getItem('parley-session-proof')}}).then(r => r.status)""") == 401
    headers = {"Cookie": f"{cookie_name}={session_id}", "Authorization": f"Session {proof}"}
    assert node_request(nodes, "alice", "/api/chatList", headers) == 401
    assert node_request(nodes, "alice", "/api/chatList", {"Authorization": f"Bearer {old_token}"}) == 401
    assert nodes.api("alice", "chatList") is not None  # the new token, read from the file
    # a new link logs in again
    page.goto(nodes.login_url("alice"))
    expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    context.close()
    # a node without the web app is revoked on its files
    line = nodes.cli("dave", "web", "--revoke")
    assert line.endswith("(no node was serving the web app)"), line


def main():
    nodes = Nodes()
    run_tests(nodes, TESTS, lambda browser: (browser, nodes))


if __name__ == "__main__":
    main()
