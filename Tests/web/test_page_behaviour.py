"""The page's behaviour in a real browser (Debian's Chromium, driven by Playwright), against two real
nodes: peer text that cannot turn the page around it (right-to-left overrides, long words, links that
hide where they go), reading that marks only what was on screen, the user's own name, invites in the
chat list, a confirmation before a member is removed, the reaction box's byte limit, and the
modules loaded in one round.

Run by Tests/web/run.sh, which installs what is missing; `python3 Tests/web/test_page_behaviour.py
WORD…` runs the tests whose names contain a WORD. Prints one "N passed, M failed" line.
"""
import re, sys, time, urllib.request

from playwright.sync_api import expect

from webnodes import ROOT, Nodes, open_chat, open_page, run_tests, show_list

RLO = "\u202e"
TESTS = []


def test(function):
    TESTS.append(function)
    return function


def wait_until(condition, what, timeout=20):
    """Polls `condition` (which returns a value or None) until it holds; its value."""
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def chat_view(nodes, name, title):
    return next(chat for chat in nodes.api(name, "chatList") if chat["name"] == title)


def new_group(nodes, title):
    """A group of alice's with bob, once bob's node holds it (he has alice as a contact: he joins by himself)."""
    chat = nodes.api("alice", "chatCreate", {"title": title, "members": ["bob"], "kind": "group"})
    wait_until(lambda: any(listed["id"] == chat["id"] for listed in nodes.api("bob", "chatList")), f"bob to join {title}")
    return chat


@test
def every_module_of_the_page_is_preloaded_so_they_load_in_one_round(nodes, alice, bob):
    index = urllib.request.urlopen(nodes.origin("alice") + "/").read().decode()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', index))
    modules = {f"/js/{path.name}" for path in (ROOT / "Sources/ParleyWebApp/Assets/js").glob("*.js")}
    assert modules and modules <= preloaded, f"not preloaded: {sorted(modules - preloaded)}"
    # and the page asked for each of them while it loaded (none is fetched only when imported)
    fetched = alice.evaluate("() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname)")
    assert modules <= set(fetched), sorted(modules - set(fetched))


@test
def the_users_own_name_is_the_name_of_their_key(nodes, alice, bob):
    me = alice.locator("#me")
    expect(me).to_contain_text("You: alice · ")
    peer = nodes.api("alice", "status")["peer"]
    expect(me).to_have_text(f"You: alice · {peer[:8]}")


@test
def a_right_to_left_override_in_a_peers_name_text_option_and_link_stays_in_its_own_run(nodes, alice, bob):
    chat = new_group(nodes, "Overrides")
    bob_id = nodes.api("bob", "status")["peer"]
    # alice's contact for bob is named with an override (a .pub file's name is the peer's choice)
    nodes.api("alice", "contactsAdd", {"peer": bob_id, "name": f"{RLO}bob"})
    try:
        nodes.api("bob", "send", {"chat": chat["id"], "text": f"get it at https://example.com/{RLO}txt.exe today", "refs": []})
        poll = nodes.api("bob", "pollCreate", {"chat": chat["id"], "question": "Where?", "options": [f"{RLO}Lake", "Hills"]})
        lake = next(option["id"] for option in poll["options"] if option["text"] == f"{RLO}Lake")
        nodes.api("bob", "pollVote", {"chat": chat["id"], "poll": poll["id"], "choices": [lake]})
        open_chat(alice, "Overrides")
        # The link reads as where it goes: the override written out, the target percent-encoded
        link = alice.locator(".message .body a")
        expect(link).to_have_text(f"https://example.com/⟨U+202E⟩txt.exe", timeout=10_000)
        assert "%E2%80%AE" in link.get_attribute("href"), link.get_attribute("href")
        assert RLO not in link.inner_text()
        # The author's name is a run of its own
        author = alice.locator(".message", has_text="get it at").locator(".author bdi")
        expect(author).to_have_text(f"{RLO}bob")
        # "Voted: ‮bob (‮Lake)": the name and the option are isolated, and what follows each stays after it
        voters = alice.locator(".poll", has_text="Where?").locator(".voters")
        expect(voters).to_contain_text("Voted:", timeout=10_000)
        layout = voters.evaluate("""(line) => {
          const runs = [...line.querySelectorAll('bdi')];
          const box = (node) => { const range = document.createRange(); range.selectNodeContents(node); return range.getBoundingClientRect(); };
          const texts = [...line.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE);
          return {
            runs: runs.map((run) => ({ text: run.textContent, isolate: getComputedStyle(run).unicodeBidi, left: box(run).left, right: box(run).right })),
            texts: texts.map((text) => ({ text: text.textContent, left: box(text).left, right: box(text).right })),
          };
        }""")
        runs, texts = layout["runs"], layout["texts"]
        assert [run["text"] for run in runs] == [f"{RLO}bob", f"{RLO}Lake"], runs
        assert all(run["isolate"] == "isolate" for run in runs), runs
        voted, opening, closing = texts[0], texts[1], texts[-1]
        assert voted["text"] == "Voted: " and voted["right"] <= runs[0]["left"] + 1, layout
        assert opening["text"] == " (" and runs[0]["right"] <= opening["left"] + 1 <= runs[1]["left"] + 2, layout
        assert closing["text"] == ")" and runs[1]["right"] <= closing["left"] + 1, layout
        # The option's text and the chat list's preview are isolated too
        option = alice.locator(".poll", has_text="Where?").locator(".option-text", has_text="Lake")
        assert option.evaluate("(node) => getComputedStyle(node).unicodeBidi") == "isolate"
        # Closed, "Closed · winner: ‮Lake": the winner is a run of its own, after the words before it
        nodes.api("bob", "pollClose", {"chat": chat["id"], "poll": poll["id"]})
        status = alice.locator(".poll", has_text="Where?").locator(".poll-status")
        expect(status).to_have_text(f"Closed · winner: {RLO}Lake", timeout=10_000)
        winner = status.evaluate("""(line) => {
          const run = line.querySelector('bdi');
          const box = (node) => { const range = document.createRange(); range.selectNodeContents(node); return range.getBoundingClientRect(); };
          return { text: run?.textContent, isolate: run && getComputedStyle(run).unicodeBidi, runLeft: run && box(run).left, words: box(line.firstChild).right };
        }""")
        assert winner["text"] == f"{RLO}Lake" and winner["isolate"] == "isolate" and winner["words"] <= winner["runLeft"] + 1, winner
        # The node's membership line names members in one sentence: an override in a name is written out
        carol_id = (nodes.work / "keys/carol.pub").read_text().split()[1]
        nodes.api("alice", "contactsAdd", {"peer": carol_id, "name": "carol"})
        nodes.api("alice", "chatAddMembers", {"chat": chat["id"], "members": [carol_id]})
        membership = alice.locator(".system", has_text="members are now")
        expect(membership.first).to_contain_text("⟨U+202E⟩bob", timeout=10_000)
        assert RLO not in membership.first.inner_text()
    finally:
        nodes.api("alice", "contactsAdd", {"peer": bob_id, "name": "bob"})


@test
def a_3000_character_word_wraps_instead_of_widening_the_timeline(nodes, alice, bob):
    chat = new_group(nodes, "Long words")
    word = "w" * 3000
    nodes.api("bob", "send", {"chat": chat["id"], "text": word, "refs": []})
    nodes.api("bob", "pollCreate", {"chat": chat["id"], "question": "q" * 3000})
    nodes.api("bob", "pollCreate", {"chat": chat["id"], "question": "Where?", "options": ["o" * 200, "Hills"]})
    for page in (alice, bob):
        open_chat(page, "Long words")
        expect(page.locator(".message .body", has_text="www")).to_be_visible(timeout=10_000)
        expect(page.locator(".poll .question", has_text="qqq")).to_be_visible(timeout=10_000)
        expect(page.locator(".poll .option-text", has_text="ooo")).to_be_visible(timeout=10_000)
        # Pointing at a message shows its actions; they wrap too, wherever the pointer was left.
        for pointed in (page.locator(".message", has_text="www"), page.locator(".poll", has_text="qqq"),
                        page.locator(".poll", has_text="ooo")):
            pointed.hover()
            # Shown, not clipped: a 1 px clipped box would count as visible too.
            expect(pointed.locator(".actions")).to_have_css("position", "static")
            widths = page.evaluate("""() => {
              const box = document.getElementById('messages');
              return { box: box.scrollWidth, shown: box.clientWidth, page: document.documentElement.scrollWidth, viewport: innerWidth };
            }""")
            assert widths["box"] <= widths["shown"] and widths["page"] <= widths["viewport"], widths


@test
def with_600_unread_only_what_was_on_screen_is_marked_read_and_scrolling_marks_more(nodes, alice, bob):
    chat = new_group(nodes, "Backlog")
    connection = nodes.connection("bob")
    sent = [nodes.api("bob", "send", {"chat": chat["id"], "text": f"backlog {number}", "refs": []}, connection)["id"]
            for number in range(1, 601)]
    connection.close()
    wait_until(lambda: chat_view(nodes, "alice", "Backlog")["unread"] == 600, "alice's node to hold bob's 600 messages", timeout=120)
    # Opened at the first unread message, under the divider
    open_chat(alice, "Backlog")
    divider = alice.locator(".unread-divider")
    expect(divider).to_be_visible(timeout=15_000)
    first = alice.locator(".unread-divider + .item .body")
    expect(first).to_have_text("backlog 1")
    # What is on screen is read, and nothing else: a screenful of 600
    wait_until(lambda: chat_view(nodes, "alice", "Backlog")["unread"] < 600, "the first screen to be read")
    alice.wait_for_timeout(1000)
    unread = chat_view(nodes, "alice", "Backlog")["unread"]
    shown = alice.evaluate("""() => {
      const box = document.getElementById('messages').getBoundingClientRect();
      return [...document.querySelectorAll('#messages .message')].filter((node) => {
        const rect = node.getBoundingClientRect();
        return rect.bottom > box.top && rect.top < box.bottom;
      }).map((node) => node.querySelector('.body').textContent);
    }""")
    read = 600 - unread
    assert 0 < read <= len(shown) and f"backlog {read}" in shown, (read, shown)
    # bob's node gets read receipts for those, and for none of the others
    receipt = lambda number: nodes.api("bob", "receipts", {"chat": chat["id"], "message": sent[number - 1]})[0]
    wait_until(lambda: receipt(read)["read"], "bob's node to get alice's read receipts")
    assert receipt(1)["read"] and not receipt(read + 1)["read"] and not receipt(600)["read"]
    # Scrolling down reads more
    alice.locator("#messages").hover()
    alice.mouse.wheel(0, 1500)
    wait_until(lambda: chat_view(nodes, "alice", "Backlog")["unread"] < unread, "scrolling to mark more")
    later = chat_view(nodes, "alice", "Backlog")["unread"]
    assert later > 400, later
    # and reading down to the latest reads the rest
    alice.mouse.wheel(0, 10_000_000)
    wait_until(lambda: chat_view(nodes, "alice", "Backlog")["unread"] == 0, "the end of the chat to be read")


@test
def a_message_over_twice_the_screens_height_is_read_once_it_covers_half_the_screen(nodes, alice, bob):
    chat = new_group(nodes, "Tall")
    connection = nodes.connection("bob")
    for number in range(1, 31):
        nodes.api("bob", "send", {"chat": chat["id"], "text": f"short {number}", "refs": []}, connection)
    connection.close()
    nodes.api("bob", "send", {"chat": chat["id"], "text": "tall\n" + "line\n" * 400, "refs": []})
    wait_until(lambda: chat_view(nodes, "alice", "Tall")["unread"] == 31, "alice's node to hold bob's 31 messages")
    open_chat(alice, "Tall")
    expect(alice.locator(".unread-divider")).to_be_visible(timeout=15_000)
    wait_until(lambda: chat_view(nodes, "alice", "Tall")["unread"] < 31, "the first screen to be read")
    # The tall message's top a little above the screen's bottom (the short ones above it are read),
    # then a jump to its end: its share of the screen grows without crossing the observer's half.
    alice.evaluate("""() => {
      const box = document.getElementById('messages');
      const tall = [...box.querySelectorAll('.message')].find((node) => node.querySelector('.body').textContent.startsWith('tall'));
      box.scrollTop += tall.getBoundingClientRect().top - box.getBoundingClientRect().bottom + 100;
    }""")
    wait_until(lambda: chat_view(nodes, "alice", "Tall")["unread"] == 1, "the short messages to be read")
    alice.wait_for_timeout(500)
    assert chat_view(nodes, "alice", "Tall")["unread"] == 1, "the tall message was read with a tenth of it on screen"
    alice.evaluate("() => { const box = document.getElementById('messages'); box.scrollTop = box.scrollHeight; }")
    wait_until(lambda: chat_view(nodes, "alice", "Tall")["unread"] == 0, "the tall message to be read")


@test
def an_invite_from_a_stranger_shows_in_the_chat_list_with_names_and_is_accepted_there(nodes, alice, bob):
    chat = nodes.cli("dave", "chat", "create", "Reading group", "--member", "bob")
    show_list(bob)
    card = bob.locator("#chat-list .invite", has_text="Reading group")
    expect(card).to_be_visible(timeout=15_000)
    dave_id = (nodes.work / "keys/dave.pub").read_text().split()[1]
    expect(card.locator(".invite-text")).to_have_text(f"{dave_id[:8]} (not in your contacts) invites you to the group Reading group")
    card.locator("input").fill("dave")
    card.locator("button", has_text="Accept").click()
    expect(bob.locator("#chat-list .invite")).to_have_count(0, timeout=10_000)
    expect(bob.locator(".chat-item", has_text="Reading group")).to_be_visible(timeout=10_000)
    assert "dave" in nodes.cli("bob", "contacts", "list")
    assert chat


@test
def removing_a_member_asks_first_and_says_what_it_does(nodes, alice, bob):
    new_group(nodes, "Removal")
    open_chat(alice, "Removal")
    alice.click("#toggle-members")
    member = alice.locator("#members-pane .member", has_text="bob")
    expect(member).to_be_visible(timeout=10_000)
    member.locator("button", has_text="Remove").click()
    confirm = alice.locator("dialog.confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("Remove bob?")
    expect(confirm).to_contain_text("The chat gets a new key")
    confirm.locator("button", has_text="Cancel").click()
    expect(confirm).to_have_count(0)
    alice.wait_for_timeout(500)
    assert any(member["name"] == "bob" for member in chat_view(nodes, "alice", "Removal")["members"])
    member = alice.locator("#members-pane .member", has_text="bob")
    member.locator("button", has_text="Remove").click()
    alice.locator("dialog.confirm button", has_text="Remove from the chat").click()
    wait_until(lambda: all(member["name"] != "bob" for member in chat_view(nodes, "alice", "Removal")["members"]), "bob to be removed")
    alice.click("#toggle-members")


@test
def the_reaction_box_takes_64_bytes_and_refuses_65_with_a_message(nodes, alice, bob):
    chat = new_group(nodes, "Reactions")
    nodes.api("bob", "send", {"chat": chat["id"], "text": "react to me", "refs": []})
    open_chat(alice, "Reactions")
    message = alice.locator(".message", has_text="react to me")
    expect(message).to_be_visible(timeout=10_000)
    message.hover()
    box = message.locator(".reaction-word")
    too_long = "é" * 32 + "x"  # 65 bytes in 33 characters
    box.fill(too_long)
    box.press("Enter")
    expect(alice.locator("#toast")).to_have_text("A reaction is at most 64 bytes of UTF-8; this one is 65. Shorten it.")
    assert box.input_value() == too_long
    fits = "é" * 32  # 64 bytes
    box.fill(fits)
    box.press("Enter")
    expect(message.locator(".chip", has_text=fits)).to_be_visible(timeout=10_000)


def main():
    nodes = Nodes()
    problems = []
    chosen = [function for function in TESTS if not sys.argv[1:] or any(word in function.__name__ for word in sys.argv[1:])]
    run_tests(nodes, chosen, lambda browser: (nodes, open_page(browser, nodes, "alice", 1280, 800, problems),
                                              open_page(browser, nodes, "bob", 390, 844, problems)),
              problems=problems, clear_problems=True)


if __name__ == "__main__":
    main()
