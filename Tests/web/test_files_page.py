"""Files and pictures in the page (issue 37), in a real browser (Debian's Chromium, driven by
Playwright) against two real nodes: a picture attached with the paperclip shows on the other page
(its thumbnail, then the picture the node fetched by itself) and opens full size; a file dropped or
attached shows as a card whose Download fetches it, then saves bytes served as an attachment that no
browser sniffs; the chat with a card passes an accessibility scan (axe-core's WCAG 2 A and AA rules)
in both themes.

Run by Tests/web/run.sh, which installs what is missing; `python3 Tests/web/test_files_page.py
WORD…` runs the tests whose names contain a WORD. Prints one "N passed, M failed" line.
"""
import os, sys, tempfile
from pathlib import Path

from playwright.sync_api import expect

from test_everyday_page import axe_violations
from test_page_behaviour import chat_view, new_group, wait_until
from webnodes import ROOT, Nodes, open_chat, open_page, run_tests

BEACH = ROOT / "samples/beach.jpg"
TESTS = []


def test(function):
    TESTS.append(function)
    return function


def files_chat(nodes):
    """'Files': a group of alice's with bob."""
    if not any(chat["name"] == "Files" for chat in nodes.api("alice", "chatList")):
        new_group(nodes, "Files")
    return chat_view(nodes, "alice", "Files")


def sample_bin(size=300 * 1024):
    """A file no sniffer takes for a picture, of `size` bytes; its path and its bytes."""
    data = bytes((index * 31 + 7) % 251 for index in range(size))
    handle, path = tempfile.mkstemp(prefix="parley-sample-", suffix=".bin")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return Path(path), data


def proof(page):
    return page.evaluate("() => localStorage.getItem('parley-session-proof')")


@test
def a_picture_attached_with_the_paperclip_shows_on_the_other_page_and_opens_full_size(nodes, alice, bob):
    chat = files_chat(nodes)
    open_chat(alice, "Files")
    expect(alice.locator("#attach")).to_have_attribute("aria-label", "Attach a file")
    alice.set_input_files("#attach-input", str(BEACH))
    expect(alice.locator("#upload-status")).to_have_text("Sent beach.jpg.", timeout=15_000)
    # The sender's own page shows it as soon as the watch streams it: held there from the start
    own = alice.locator(".message.own img.picture-image[alt='beach.jpg']")
    expect(own).to_be_visible(timeout=10_000)
    wait_until(lambda: (own.get_attribute("src") or "").startswith("blob:"), "alice's picture to load")

    open_chat(bob, "Files")
    picture = bob.locator("img.picture-image[alt='beach.jpg']")
    expect(picture).to_be_visible(timeout=15_000)
    file = next(view for view in nodes.api("bob", "files", {"chat": chat["id"]}) if view["name"] == "beach.jpg")
    if file.get("width"):
        expect(picture).to_have_attribute("width", str(file["width"]))
        expect(picture).to_have_attribute("height", str(file["height"]))
    # bob's node fetches a picture this small by itself; the page then shows the picture, not the thumbnail
    wait_until(lambda: (picture.get_attribute("src") or "").startswith("blob:"), "bob's node to fetch the picture", timeout=30)
    assert picture.evaluate("(image) => image.complete && image.naturalWidth > 0")

    bob.locator("button.picture", has=picture).click()
    full = bob.locator("dialog.picture-view")
    expect(full).to_be_visible()
    expect(full.locator("img.picture-full")).to_have_attribute("alt", "beach.jpg")
    assert full.locator("img.picture-full").evaluate("(image) => image.complete && image.naturalWidth > 0")
    bob.keyboard.press("Escape")
    expect(full).to_have_count(0)
    # and by its button, reached from the keyboard
    bob.locator("button.picture", has=picture).focus()
    bob.keyboard.press("Enter")
    expect(full).to_be_visible()
    full.get_by_role("button", name="Close").click()
    expect(full).to_have_count(0)


@test
def the_picture_route_serves_the_picture_with_its_type_and_a_sandbox(nodes, alice, bob):
    chat = files_chat(nodes)
    if not any(view["name"] == "beach.jpg" for view in nodes.api("alice", "files", {"chat": chat["id"]})):
        # the first test attaches it; run alone, this one does
        open_chat(alice, "Files")
        alice.set_input_files("#attach-input", str(BEACH))
        expect(alice.locator("#upload-status")).to_have_text("Sent beach.jpg.", timeout=15_000)
    file = next(view for view in nodes.api("alice", "files", {"chat": chat["id"]}) if view["name"] == "beach.jpg")
    response = alice.request.get(f"{nodes.origin('alice')}/api/pictures/{chat['id']}/{file['id']}",
                                 headers={"Authorization": f"Session {proof(alice)}"})
    assert response.status == 200, response.status
    headers = response.headers
    assert headers["content-type"] == "image/jpeg", headers
    assert headers["content-disposition"].startswith("inline"), headers
    assert headers["x-content-type-options"] == "nosniff", headers
    assert headers["content-security-policy"] == "default-src 'none'; sandbox", headers
    assert response.body()[:3] == b"\xff\xd8\xff"
    # The cookie alone (as an <img> elsewhere on the host would send it) opens nothing
    bare = alice.request.get(f"{nodes.origin('alice')}/api/pictures/{chat['id']}/{file['id']}")
    assert bare.status == 401, bare.status


@test
def a_file_from_the_other_page_shows_as_a_card_whose_download_fetches_then_saves_it(nodes, alice, bob):
    files_chat(nodes)
    path, data = sample_bin()
    try:
        open_chat(bob, "Files")
        bob.set_input_files("#attach-input", str(path))
        expect(bob.locator("#upload-status")).to_have_text(f"Sent {path.name}.", timeout=15_000)
    finally:
        path.unlink()
    open_chat(alice, "Files")
    card = alice.locator(".file-card", has_text=path.name)
    expect(card).to_be_visible(timeout=15_000)
    expect(card.locator(".file-details")).to_have_text("300 KiB · application/octet-stream")
    # Not held on alice's node (only pictures are fetched by themselves): Download fetches it first
    start = card.get_by_role("button", name=f"Download {path.name}")
    expect(start).to_be_visible()
    start.click()
    link = card.locator("a.button-link")
    expect(link).to_be_visible(timeout=30_000)
    assert link.get_attribute("download") == path.name
    href = link.get_attribute("href")
    assert href.startswith("/api/files/"), href
    with alice.expect_download() as waiting:
        link.click()
    download = waiting.value
    assert download.suggested_filename == path.name, download.suggested_filename
    assert Path(download.path()).read_bytes() == data
    # What the link's address answers, asked with the page's session
    response = alice.request.get(nodes.origin("alice") + href, headers={"Authorization": f"Session {proof(alice)}"})
    assert response.status == 200, response.status
    assert response.headers["content-disposition"].startswith(f'attachment; filename="{path.name}"'), response.headers
    assert f"filename*=UTF-8''{path.name}" in response.headers["content-disposition"], response.headers
    assert response.headers["x-content-type-options"] == "nosniff", response.headers
    assert response.headers["content-type"] == "application/octet-stream", response.headers
    assert response.headers["cache-control"] == "private, no-store", response.headers
    assert response.body() == data


@test
def files_dropped_on_the_chat_are_sent_with_a_hint_while_dragged(nodes, alice, bob):
    files_chat(nodes)
    open_chat(alice, "Files")
    transfer = alice.evaluate_handle("""() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(2048).fill(7)], 'dropped.bin', { type: 'application/octet-stream' }));
      return transfer;
    }""")
    alice.dispatch_event("#messages", "dragenter", {"dataTransfer": transfer})
    expect(alice.locator("#drop-hint")).to_be_visible()
    alice.dispatch_event("#messages", "drop", {"dataTransfer": transfer})
    expect(alice.locator("#drop-hint")).to_be_hidden()
    expect(alice.locator("#upload-status")).to_have_text("Sent dropped.bin.", timeout=15_000)
    expect(alice.locator(".file-card", has_text="dropped.bin")).to_be_visible(timeout=10_000)


@test
def axe_finds_no_wcag_a_or_aa_violation_in_a_chat_with_a_picture_and_a_file_card(nodes, alice, bob):
    chat = files_chat(nodes)
    if not any(view["picture"] is False for view in nodes.api("alice", "files", {"chat": chat["id"]})):
        path, _ = sample_bin(4096)
        try:
            open_chat(alice, "Files")
            alice.set_input_files("#attach-input", str(path))
            expect(alice.locator("#upload-status")).to_have_text(f"Sent {path.name}.", timeout=15_000)
        finally:
            path.unlink()
    open_chat(alice, "Files")
    expect(alice.locator(".file-card").first).to_be_visible(timeout=10_000)
    problems = []
    for scheme in ["light", "dark"]:
        alice.emulate_media(color_scheme=scheme)
        alice.locator("#messages").hover()
        problems += [f"{scheme}, chat with files: {report}" for report in axe_violations(alice)]
        pictures = alice.locator("button.picture")
        if pictures.count() > 0:
            pictures.first.click()
            expect(alice.locator("dialog.picture-view")).to_be_visible()
            problems += [f"{scheme}, picture: {report}" for report in axe_violations(alice)]
            alice.keyboard.press("Escape")
            expect(alice.locator("dialog.picture-view")).to_have_count(0)
    alice.emulate_media(color_scheme="light")
    assert not problems, "\n".join(problems)


def main():
    nodes = Nodes()
    problems = []
    chosen = [function for function in TESTS if not sys.argv[1:] or any(word in function.__name__ for word in sys.argv[1:])]
    run_tests(nodes, chosen, lambda browser: (nodes, open_page(browser, nodes, "alice", 1280, 800, problems),
                                              open_page(browser, nodes, "bob", 390, 844, problems)),
              problems=problems, clear_problems=True, logs=("alice", "bob"))


if __name__ == "__main__":
    main()
