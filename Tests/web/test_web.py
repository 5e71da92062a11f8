"""The web app in a real browser (Debian's Chromium, driven by Playwright): two nodes serve it,
alice's page and bob's page act on each other's screens live, peer text stays text, and the API
refuses a request without the token. Screenshots of both layouts go to docs/web/.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import json, subprocess, time, urllib.error, urllib.request

from playwright.sync_api import expect

from webnodes import PARLEY, ROOT, Nodes, open_chat, open_page, run_tests, show_list

SHOTS = ROOT / "docs/web"


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
def a_contact_is_added_from_an_uploaded_pub_file(nodes, alice, bob, problems):
    alice.click("#show-contacts")
    alice.set_input_files(".contact-form input[type=file]", str(nodes.work / "keys/carol.pub"))
    expect(alice.locator(".contact-form input[name=name]")).to_have_value("carol")
    alice.click(".contact-form button[type=submit]")
    expect(alice.locator(".contact-list li", has_text="carol")).to_be_visible(timeout=5000)
    assert "carol" in nodes.cli("alice", "contacts", "list")
    alice.click("#dialog .form-actions button:has-text('Close')")


@test
def a_member_no_address_reaches_is_named_in_the_member_pane(nodes, alice, bob, problems):
    # erin is a contact without an address, and no node of hers ever announced itself
    subprocess.run([PARLEY, "keygen", "erin", "--dir", str(nodes.work / "keys")], check=True, capture_output=True)
    nodes.cli("alice", "contacts", "add", str(nodes.work / "keys/erin.pub"), "--name", "erin")
    nodes.cli("alice", "chat", "create", "Just erin", "--member", "erin")
    open_chat(alice, "Just erin")
    alice.click("#toggle-members")
    expect(alice.locator(".hint.warning")).to_contain_text("No address known for erin", timeout=5000)
    alice.click("#toggle-members")


@test
def an_invite_from_a_stranger_waits_and_is_accepted_in_the_page(nodes, alice, bob, problems):
    chat = nodes.cli("dave", "chat", "create", "Book club", "--member", "bob")
    nodes.cli("dave", "send", chat, "Welcome, bob")
    show_list(bob)
    expect(bob.locator("#invites-badge")).to_have_text("1", timeout=15_000)
    bob.click("#show-contacts")
    # (also at the top of the chat list, behind the dialog: test_page_behaviour.py answers one there)
    invite = bob.locator("#dialog .invite", has_text="Book club")
    expect(invite).to_be_visible()
    invite.locator("input").fill("dave")
    invite.locator("button", has_text="Accept").click()
    expect(bob.locator(".invite")).to_have_count(0, timeout=5000)
    bob.click("#dialog .form-actions button:has-text('Close')")
    expect(bob.locator(".chat-item", has_text="Book club")).to_be_visible(timeout=10_000)
    open_chat(bob, "Book club")
    expect(bob.locator(".message", has_text="Welcome, bob")).to_be_visible(timeout=10_000)


@test
def a_yes_no_poll_is_closed_by_its_creator_and_shows_its_winner(nodes, alice, bob, problems):
    open_chat(alice, "Team lunch")
    open_chat(bob, "Team lunch")
    alice.click("#new-poll")
    alice.fill(".poll-form input[name=question]", "Pizza on Friday?")
    alice.click(".poll-form button[type=submit]")
    card = bob.locator(".poll", has_text="Pizza on Friday?")
    expect(card).to_be_visible(timeout=5000)
    card.locator("button.vote", has_text="Yes").click()
    mine = alice.locator(".poll", has_text="Pizza on Friday?")
    expect(mine.locator(".option-row").first.locator(".count")).to_have_text("1", timeout=5000)
    mine.locator("button", has_text="Close poll").click()
    expect(card.locator(".poll-status")).to_have_text("Closed · winner: Yes", timeout=5000)
    assert card.locator("button.vote").first.is_disabled()


@test
def the_member_pane_shows_presence_and_a_note_stays_on_its_device(nodes, alice, bob, problems):
    alice.click("#toggle-members")
    expect(alice.locator(".member", has_text="bob")).to_contain_text("online", timeout=10_000)
    alice.click("#toggle-members")
    message = alice.locator(".message", has_text="Yes, for two")
    message.hover()
    message.locator("button", has_text="Note").click()
    expect(alice.locator("#dialog .private")).to_contain_text("Private to this device")
    alice.fill("#dialog textarea", "book for 7pm")
    alice.click("#dialog button:has-text('Save')")
    expect(alice.locator("#dialog .hint")).to_have_text("Saved on this device.", timeout=5000)
    alice.click("#dialog button:has-text('Close')")
    message_id = message.get_attribute("data-id")
    assert "book for 7pm" in nodes.cli("alice", "local", "get", message_id, "note")


@test
def a_member_who_signed_two_histories_is_named_in_a_banner_and_a_disputed_poll_says_so(nodes, alice, bob, problems):
    # No node here can fork: alice's page gets the chat list with a forked member added, as the node
    # would send it after proving one (ChatView.forked), her name a peer's markup and an RTL override.
    hostile = "<img src=x onerror=alert(1)>\u202emallory"

    def with_fork(route):
        response = route.fetch()
        chats = response.json()
        for chat in chats:
            if chat["name"] == "Team lunch":
                chat["forked"] = [{"id": "f" * 64, "name": hostile, "fromSequence": 5}]
        route.fulfill(response=response, json=chats)

    alice.route("**/api/chatList", with_fork)
    try:
        alice.reload()
        expect(alice.locator("#connection")).to_have_text("live", timeout=10_000)
        expect(alice.locator(".chat-item", has_text="Team lunch").locator(".chat-forked")).to_be_visible(timeout=5000)
        open_chat(alice, "Team lunch")
        banner = alice.locator("#fork-banner")
        expect(banner).to_be_visible(timeout=5000)
        expect(banner).to_contain_text("signed two histories from their message 5: their messages from then on count for nothing")
        # the name is the characters it is, isolated in its own <bdi>, and no markup
        assert banner.locator("bdi").inner_text() == hostile, banner.locator("bdi").inner_text()
        assert alice.locator("#fork-banner img").count() == 0
        # A disputed poll's card, built by the page's own module from a results view
        shown = alice.evaluate("""async (hostile) => {
          const { pollCard } = await import("/js/polls.js");
          const results = {
            id: "ab", chat: "cd", kind: "yesNo", question: "Pizza?", author: "ee", authorName: hostile, createdAtMillis: 0,
            lamport: 1, sequence: 1, historyClock: 1, up: 1, down: 1, totalVotes: 2, winners: [], ownVotes: [], isClosed: false,
            bars: [{ choice: "up", votes: 1, share: 0.5, winner: false }, { choice: "down", votes: 1, share: 0.5, winner: false }],
            phase: "disputed", answersCount: 0, latestAnswers: [], voters: [],
            disputes: { creator: { id: "ee", name: hostile }, voters: [{ id: "ff", name: hostile }] },
          };
          const card = pollCard(results, { chat: "cd", me: "ee", toast: () => {}, onChanged: () => {} });
          return {
            status: card.querySelector(".poll-status").textContent,
            disputes: card.querySelector(".disputes").textContent,
            images: card.querySelectorAll("img").length,
            votesDisabled: [...card.querySelectorAll("button.vote")].every((vote) => vote.disabled),
            closeOffered: [...card.querySelectorAll("button")].some((button) => button.textContent === "Close poll"),
          };
        }""", hostile)
        assert shown["status"] == f"Disputed · {hostile} signed two histories before closing it: no result is final", shown
        assert shown["disputes"] == f"Not counted: {hostile} signed two histories; their vote counts for nothing.", shown
        assert shown["images"] == 0 and shown["votesDisabled"] and not shown["closeOffered"], shown
    finally:
        # Waits for a handler still fetching (a chat list the page asked for on an event), so the
        # reload below cannot abort a request that handler then fulfils.
        alice.unroute_all(behavior="wait")
    # Back to the chat list as the node gives it: no banner
    alice.reload()
    expect(alice.locator("#connection")).to_have_text("live", timeout=10_000)
    open_chat(alice, "Team lunch")
    expect(alice.locator("#fork-banner")).to_be_hidden()


@test
def both_layouts_are_captured(nodes, alice, bob, problems):
    SHOTS.mkdir(parents=True, exist_ok=True)
    alice.wait_for_timeout(500)
    alice.screenshot(path=str(SHOTS / "wide-1280x800.png"))
    bob.screenshot(path=str(SHOTS / "narrow-390x844.png"))
    show_list(bob)
    expect(bob.locator(".chat-item", has_text="Team lunch")).to_be_visible()
    bob.screenshot(path=str(SHOTS / "narrow-list-390x844.png"))


def main():
    nodes = Nodes()
    problems = []
    run_tests(nodes, TESTS, lambda browser: (nodes, open_page(browser, nodes, "alice", 1280, 800, problems),
                                             open_page(browser, nodes, "bob", 390, 844, problems), problems),
              problems=problems)


if __name__ == "__main__":
    main()
