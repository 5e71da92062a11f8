"""Everyday chat in the page (issue 36), in a real browser (Debian's Chromium, driven by Playwright)
against two real nodes: light and dark themes that pass an accessibility scan (axe-core's WCAG 2 A and
AA rules) in both, every control reachable by keyboard with a visible ring, faces from ids, link cards
made from the message alone with no request to any other host, unread dividers, the jump back to
them and the tab's unread total, muting (kept by the node, never sent) and notifications while the
page is hidden, asked for on a click and never for a muted chat. Saves docs/web/everyday-light.png and
docs/web/everyday-dark.png.

Run by Tests/web/run.sh, which installs what is missing; `python3 Tests/web/test_everyday_page.py
WORD…` runs the tests whose names contain a WORD. Prints one "N passed, M failed" line.
"""
import sys
from urllib.parse import urlsplit

from playwright.sync_api import expect

from test_page_behaviour import chat_view, new_group, wait_until
from webnodes import ROOT, Nodes, open_chat, open_page, run_tests, show_list

RLO = "\u202e"
SHOTS = ROOT / "docs/web"
AXE_RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}, "resultTypes": ["violations"]}
TESTS = []


def test(function):
    TESTS.append(function)
    return function


def peer(nodes, name):
    return nodes.api(name, "status")["peer"]


def hue(identifier):
    """The palette index js/avatars.js takes for an id."""
    return int(identifier[:8], 16) % 10


def unread_total(nodes, name):
    """What the tab's title counts: the unread messages of the chats that are not muted."""
    return sum(chat["unread"] for chat in nodes.api(name, "chatList") if not chat["muted"])


def expect_title_total(page, nodes):
    """The tab's title says the node's unread total ("(3) Parley"), once the page has caught up."""
    def matches():
        total = unread_total(nodes, "alice")
        return page.title() == (f"({total:,}) Parley" if total else "Parley")
    wait_until(matches, "the tab's title to count the unread messages")


def axe_violations(page):
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page, options=AXE_RULES)
    return [] if results.violations_count == 0 else [results.generate_report()]


def background(page, selector):
    return page.locator(selector).evaluate("(node) => getComputedStyle(node).backgroundColor")


def the_everyday_chat(nodes):
    """'Everyday': a group of alice's with bob, a few messages (one with a link) and a poll voted on."""
    if any(chat["name"] == "Everyday" for chat in nodes.api("alice", "chatList")):
        return chat_view(nodes, "alice", "Everyday")
    chat = new_group(nodes, "Everyday")
    nodes.api("bob", "send", {"chat": chat["id"], "text": "Morning! Who is in for lunch on Friday?", "refs": []})
    nodes.api("alice", "send", {"chat": chat["id"], "text": "Me. Somewhere near the office?", "refs": []})
    nodes.api("bob", "send", {"chat": chat["id"], "text": "This one looks good: https://example.com/menus/lakeside-grill.html", "refs": []})
    poll = nodes.api("bob", "pollCreate", {"chat": chat["id"], "question": "Where on Friday?", "options": ["Lakeside grill", "Noodle bar", "Pizza place"]})
    lake = next(option["id"] for option in poll["options"] if option["text"] == "Lakeside grill")
    nodes.api("bob", "pollVote", {"chat": chat["id"], "poll": poll["id"], "choices": [lake]})
    nodes.api("alice", "pollVote", {"chat": chat["id"], "poll": poll["id"], "choices": [lake]})
    wait_until(lambda: chat_view(nodes, "alice", "Everyday")["messageCount"] >= 6, "alice's node to hold the chat")
    return chat


def open_everyday(page, nodes):
    the_everyday_chat(nodes)
    open_chat(page, "Everyday")
    expect(page.locator(".poll", has_text="Where on Friday?")).to_be_visible(timeout=10_000)
    expect(page.locator(".link-card")).to_be_visible(timeout=10_000)


@test
def the_page_follows_the_systems_theme_until_the_toggle_picks_one_which_is_remembered(nodes, alice):
    toggle = alice.locator("#theme")
    expect(toggle).to_have_text("Theme: system")
    alice.emulate_media(color_scheme="dark")
    dark = background(alice, "body")
    alice.emulate_media(color_scheme="light")
    light = background(alice, "body")
    assert dark != light and dark == "rgb(17, 20, 24)", (dark, light)
    # Light picked while the system is dark: light it stays, after a reload too
    alice.emulate_media(color_scheme="dark")
    toggle.click()
    expect(toggle).to_have_text("Theme: light")
    assert background(alice, "body") == light
    alice.reload()
    expect(alice.locator("#connection")).to_have_text("live", timeout=10_000)
    expect(alice.locator("#theme")).to_have_text("Theme: light")
    assert background(alice, "body") == light
    # then dark while the system is light, then the system's again
    alice.emulate_media(color_scheme="light")
    alice.locator("#theme").click()
    expect(alice.locator("#theme")).to_have_text("Theme: dark")
    assert background(alice, "body") == dark
    alice.locator("#theme").click()
    expect(alice.locator("#theme")).to_have_text("Theme: system")
    assert background(alice, "body") == light
    assert alice.evaluate("() => localStorage.getItem('parley-theme')") is None


@test
def axe_finds_no_wcag_a_or_aa_violation_in_the_main_views_in_either_theme(nodes, alice):
    open_everyday(alice, nodes)
    problems = []
    for scheme in ["light", "dark"]:
        alice.emulate_media(color_scheme=scheme)
        alice.locator("#messages").hover()  # a message's actions and reactions shown, as under the pointer
        problems += [f"{scheme}, chat open: {report}" for report in axe_violations(alice)]
        alice.click("#toggle-members")
        expect(alice.locator("#members-pane .member")).to_have_count(2, timeout=10_000)
        problems += [f"{scheme}, members: {report}" for report in axe_violations(alice)]
        alice.click("#toggle-members")
        alice.click("#new-poll")
        expect(alice.locator("#dialog")).to_be_visible()
        problems += [f"{scheme}, new poll: {report}" for report in axe_violations(alice)]
        alice.keyboard.press("Escape")
        alice.click("#new-chat")
        expect(alice.locator("#dialog")).to_be_visible()
        problems += [f"{scheme}, new chat: {report}" for report in axe_violations(alice)]
        alice.keyboard.press("Escape")
        expect(alice.locator("#dialog")).to_be_hidden()
    assert not problems, "\n".join(problems)


@test
def screenshots_of_a_chat_with_a_poll_in_both_themes(nodes, alice):
    open_everyday(alice, nodes)
    alice.mouse.move(0, 0)
    alice.evaluate("() => { const box = document.getElementById('messages'); box.scrollTop = box.scrollHeight; }")
    for scheme in ["light", "dark"]:
        alice.emulate_media(color_scheme=scheme)
        alice.wait_for_timeout(300)
        alice.screenshot(path=str(SHOTS / f"everyday-{scheme}.png"))
    alice.emulate_media(color_scheme="light")


@test
def every_control_of_the_main_view_takes_the_keyboard_focus_with_a_visible_ring(nodes, alice):
    open_everyday(alice, nodes)
    if alice.locator("#members-pane").is_visible():
        alice.click("#toggle-members")
    alice.mouse.move(0, 0)
    # Every control of the list, the header, the timeline and the composer that the keyboard should reach
    count = alice.evaluate("""() => {
      const controls = [...document.querySelectorAll('#app button, #app input, #app textarea, #app select, #app a[href]')]
        .filter((node) => !node.disabled && node.tabIndex >= 0 && node.getClientRects().length > 0);
      controls.forEach((node, index) => { node.dataset.keyboard = String(index); });
      return controls.length;
    }""")
    assert count > 20, count
    alice.evaluate("() => document.activeElement?.blur()")
    reached, unringed = set(), []
    for _ in range(count * 2 + 10):
        alice.keyboard.press("Tab")
        focus = alice.evaluate("""() => {
          const node = document.activeElement;
          if (!node || !node.dataset.keyboard) return null;
          const style = getComputedStyle(node);
          const box = node.getBoundingClientRect();
          return { index: node.dataset.keyboard, label: (node.textContent || node.getAttribute('aria-label') || node.id).trim(),
                   ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2, seen: box.width > 4 && box.height > 4 };
        }""")
        if focus is None:
            continue
        reached.add(focus["index"])
        if not (focus["ring"] and focus["seen"]):
            unringed.append(focus)
        if len(reached) == count:
            break
    missed = alice.evaluate("""(reached) => [...document.querySelectorAll('[data-keyboard]')]
      .filter((node) => !reached.includes(node.dataset.keyboard))
      .map((node) => (node.textContent || node.getAttribute('aria-label') || node.id).trim())""", sorted(reached))
    assert not missed, f"never focused by Tab: {missed}"
    assert not unringed, f"focused without a visible ring: {unringed}"


@test
def faces_take_their_colour_from_the_id_and_their_letters_from_the_name_only(nodes, alice):
    bob_id = peer(nodes, "bob")
    open_everyday(alice, nodes)
    expected = f"avatar hue-{hue(bob_id)} small"
    face = alice.locator(".message", has_text="Morning!").locator(".avatar")
    expect(face).to_have_attribute("class", expected)
    expect(face).to_have_text("B")
    assert face.get_attribute("aria-hidden") == "true"
    alice.click("#toggle-members")
    member = alice.locator("#members-pane .member", has_text="bob").locator(".avatar")
    expect(member).to_have_attribute("class", f"avatar hue-{hue(bob_id)}", timeout=10_000)
    alice.click("#toggle-members")
    # The group's face is the chat's, from its id and title
    everyday = chat_view(nodes, "alice", "Everyday")
    show_list(alice)
    item = alice.locator(".chat-item", has_text="Everyday").locator(".avatar")
    expect(item).to_have_attribute("class", f"avatar hue-{hue(everyday['id'])}")
    expect(item).to_have_text("E")
    # A name with an override and an invisible character: letters only in the circle, the name isolated beside it
    nodes.api("alice", "contactsAdd", {"peer": bob_id, "name": f"{RLO}\u200bevil Bob"})
    try:
        chat = nodes.api("alice", "chatCreate", {"title": "", "members": [bob_id], "kind": "direct"})
        wait_until(lambda: any(listed["id"] == chat["id"] for listed in nodes.api("bob", "chatList")), "bob to join the direct chat")
        nodes.api("bob", "send", {"chat": chat["id"], "text": "direct hello", "refs": []})
        show_list(alice)
        direct = alice.locator(".chat-item", has_text="direct hello")
        expect(direct.locator(".avatar")).to_have_text("EB", timeout=15_000)
        expect(direct.locator(".avatar")).to_have_attribute("class", f"avatar hue-{hue(bob_id)}")
        name = direct.locator(".chat-name bdi").first
        expect(name).to_have_text(f"{RLO}\u200bevil Bob")
        assert name.evaluate("(node) => getComputedStyle(node).unicodeBidi") == "isolate"
    finally:
        nodes.api("alice", "contactsAdd", {"peer": bob_id, "name": "bob"})


@test
def a_links_card_shows_its_host_and_a_title_from_the_message_and_nothing_is_fetched_until_clicked(nodes, alice):
    chat = new_group(nodes, "Links")
    hosts = []
    alice.context.on("request", lambda request: hosts.append(urlsplit(request.url).netloc))
    nodes.api("bob", "send", {"chat": chat["id"], "text": "Look: https://example.com/blog/how-to-bake_bread.html", "refs": []})
    nodes.api("bob", "send", {"chat": chat["id"], "text": "the menu for tonight www.example.org", "refs": []})
    nodes.api("bob", "send", {"chat": chat["id"], "text": f"pay here https://exаmple.com/ {RLO}now", "refs": []})
    open_chat(alice, "Links")
    bread = alice.locator(".message", has_text="Look:").locator(".link-card")
    expect(bread.locator(".link-host")).to_have_text("example.com", timeout=10_000)
    expect(bread.locator(".link-title")).to_have_text("how to bake bread")
    assert bread.get_attribute("href") == "https://example.com/blog/how-to-bake_bread.html"
    assert bread.get_attribute("target") == "_blank" and bread.get_attribute("rel") == "noopener noreferrer"
    menu = alice.locator(".message", has_text="the menu").locator(".link-card")
    expect(menu.locator(".link-host")).to_have_text("example.org")
    expect(menu.locator(".link-title")).to_have_text("the menu for tonight")
    # A look-alike host (a Cyrillic "а") shows as the name it is; the override around it is written out
    lookalike = alice.locator(".message", has_text="pay here").locator(".link-card")
    expect(lookalike.locator(".link-host")).to_have_text("xn--exmple-4nf.com")
    expect(lookalike.locator(".link-title")).to_have_text("pay here ⟨U+202E⟩now")
    alice.wait_for_timeout(1000)
    origin = urlsplit(nodes.origin("alice")).netloc
    assert hosts and set(hosts) == {origin}, sorted(set(hosts))
    # A click opens it, in a new tab, with neither opener nor referrer
    seen = {}
    alice.context.route("https://example.com/**", lambda route: (
        seen.update(referer=route.request.headers.get("referer")), route.fulfill(body="ok", content_type="text/plain")))
    try:
        with alice.context.expect_page() as opened:
            bread.click()
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.url == "https://example.com/blog/how-to-bake_bread.html", tab.url
        assert tab.evaluate("() => window.opener") is None
        assert seen.get("referer") is None, seen
        tab.close()
    finally:
        alice.context.unroute("https://example.com/**")


@test
def a_chat_opens_at_its_new_messages_with_a_jump_back_and_the_tabs_title_counts_the_unread(nodes, alice):
    chat = new_group(nodes, "Catching up")
    connection = nodes.connection("bob")
    for number in range(1, 41):
        nodes.api("bob", "send", {"chat": chat["id"], "text": f"news {number}", "refs": []}, connection)
    connection.close()
    wait_until(lambda: chat_view(nodes, "alice", "Catching up")["unread"] == 40, "alice's node to hold bob's 40 messages")
    show_list(alice)
    badge = alice.locator(".chat-item", has_text="Catching up").locator(".badge")
    expect(badge).to_have_text("40 unread", timeout=10_000)
    expect_title_total(alice, nodes)
    # Opened under the divider, above the first unread message
    open_chat(alice, "Catching up")
    expect(alice.locator(".unread-divider")).to_be_visible(timeout=15_000)
    expect(alice.locator(".unread-divider + .item .body")).to_have_text("news 1")
    jump = alice.locator(".jump-unread")
    expect(jump).to_be_hidden()
    # Read down to the end: the divider scrolls away, the jump back shows, and everything is read
    alice.locator("#messages").hover()
    alice.mouse.wheel(0, 100_000)
    expect(jump).to_be_visible(timeout=5000)
    wait_until(lambda: chat_view(nodes, "alice", "Catching up")["unread"] == 0, "the chat to be read")
    jump.click()
    expect(alice.locator(".unread-divider")).to_be_in_viewport()
    expect(jump).to_be_hidden()
    show_list(alice)
    expect(alice.locator(".chat-item", has_text="Catching up").locator(".badge")).to_have_count(0, timeout=10_000)
    expect_title_total(alice, nodes)


@test
def a_muted_chat_is_marked_in_the_list_kept_by_the_node_and_left_out_of_the_title(nodes, alice):
    chat = new_group(nodes, "Quiet")
    open_chat(alice, "Quiet")
    mute = alice.locator("#mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(mute).to_have_text("Muted")
    assert chat_view(nodes, "alice", "Quiet")["muted"] is True
    assert chat_view(nodes, "bob", "Quiet")["muted"] is False  # nothing of it reached bob
    # Away from the chat, two messages arrive: counted quietly in the list, not in the title
    open_everyday(alice, nodes)
    nodes.api("bob", "send", {"chat": chat["id"], "text": "psst", "refs": []})
    nodes.api("bob", "send", {"chat": chat["id"], "text": "psst again", "refs": []})
    show_list(alice)
    item = alice.locator(".chat-item", has_text="Quiet")
    expect(item.locator(".badge.muted")).to_have_text("2 unread", timeout=15_000)
    expect(item.locator(".chat-muted")).to_contain_text("muted")
    expect_title_total(alice, nodes)
    assert f"({unread_total(nodes, 'alice') + 2}" not in alice.title()
    # Unmuted from the header again
    open_chat(alice, "Quiet")
    alice.locator("#mute").click()
    expect(alice.locator("#mute")).to_have_attribute("aria-pressed", "false")
    assert chat_view(nodes, "alice", "Quiet")["muted"] is False
    show_list(alice)
    expect(alice.locator(".chat-item", has_text="Quiet").locator(".chat-muted")).to_have_count(0)


NOTIFICATION_STUB = """
window.__notifications = [];
window.__asked = 0;
class RecordedNotification {
  constructor(title, options = {}) { window.__notifications.push({ title, body: options.body, tag: options.tag }); }
  close() {}
}
RecordedNotification.permission = "default";
RecordedNotification.requestPermission = async () => {
  window.__asked += 1;
  RecordedNotification.permission = "granted";
  return "granted";
};
window.Notification = RecordedNotification;
window.__setHidden = (hidden) => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hidden ? "hidden" : "visible") });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event("visibilitychange"));
};
"""


@test
def notifications_are_asked_for_on_a_click_and_come_while_hidden_for_others_messages_in_unmuted_chats(nodes, alice):
    pings = new_group(nodes, "Pings")
    hush = new_group(nodes, "Hush")
    nodes.api("alice", "chatMute", {"chat": hush["id"], "muted": True})
    context = alice.context.browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["notifications"], origin=nodes.origin("alice"))
    context.add_init_script(NOTIFICATION_STUB)
    page = context.new_page()
    try:
        page.goto(nodes.login_url("alice"))
        expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        toggle = page.locator("#notify")
        expect(toggle).to_have_text("Notify me")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__asked") == 0, "the permission was asked without a click"
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        assert page.evaluate("() => window.__asked") == 1
        recorded = lambda: page.evaluate("() => window.__notifications")
        # Hidden: a message in a muted chat and one of alice's own notify nothing; bob's in Pings does
        page.evaluate("() => window.__setHidden(true)")
        nodes.api("bob", "send", {"chat": hush["id"], "text": "not now", "refs": []})
        nodes.api("alice", "send", {"chat": pings["id"], "text": "my own", "refs": []})
        page.wait_for_timeout(6000)
        assert recorded() == [], recorded()
        nodes.api("bob", "send", {"chat": pings["id"], "text": f"<b>ping</b> {RLO}gnop", "refs": []})
        wait_until(recorded, "a notification of bob's message")
        assert recorded() == [{"title": "Pings", "body": "bob: <b>ping</b> ⟨U+202E⟩gnop", "tag": pings["id"]}], recorded()
        # Visible again: nothing is notified
        page.evaluate("() => window.__setHidden(false)")
        nodes.api("bob", "send", {"chat": pings["id"], "text": "seen it?", "refs": []})
        page.wait_for_timeout(6000)
        assert len(recorded()) == 1, recorded()
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        expect(toggle).to_have_text("Notify me")
    finally:
        context.close()


def main():
    nodes = Nodes()
    problems = []
    chosen = [function for function in TESTS if not sys.argv[1:] or any(word in function.__name__ for word in sys.argv[1:])]
    run_tests(nodes, chosen, lambda browser: (nodes, open_page(browser, nodes, "alice", 1280, 800, problems)),
              problems=problems, clear_problems=True)


if __name__ == "__main__":
    main()
