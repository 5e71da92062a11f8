"""The page's everyday verbs (PROTOCOL.md §13d): alice edits her message in place and it shows
"edited" with its versions one click away; bob's deletion of his own message becomes a tombstone on
alice's page; a pin shows in the bar above the messages; the thread opens in a pane and a reply sent
there reaches the CLI; a mention of alice is highlighted, and what bob wrote stays text. Three real
nodes, alice's page in Debian's Chromium (Playwright).

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import json, subprocess, time

from playwright.sync_api import expect

from webnodes import Trio, open_chat, open_page, run_tests


def history(nodes, name, chat):
    return json.loads(nodes.cli(name, "messages", chat, "--json"))


def fails(nodes, name, *arguments):
    """Whether the command exits with an error (the node refused it)."""
    try:
        nodes.cli(name, *arguments)
        return False
    except subprocess.CalledProcessError:
        return True


def wait_until(check, what, timeout=15):
    for _ in range(int(timeout * 10)):
        if check():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def everyday_verbs_work_in_the_page(nodes, alice):
    chat = nodes.cli("alice", "chat", "create", "Everyday", "--member", "bob", "--member", "carol")
    for name in ("bob", "carol"):
        nodes.wait_for(name, "messages", chat)
    mine = nodes.cli("alice", "send", chat, "lunch at noon")
    wait_until(lambda: any(m["id"] == mine for m in history(nodes, "bob", chat)), "bob to get alice's message")
    bobs = nodes.cli("bob", "send", chat, "hey @alice <b>bold</b>")
    doomed = nodes.cli("bob", "send", chat, "oops, wrong chat")
    expect(alice.locator(".chat-item", has_text="Everyday")).to_be_visible(timeout=10_000)
    open_chat(alice, "Everyday")

    # A mention of alice is highlighted as hers; bob's markup stays characters
    bob_article = alice.locator(f'article[data-id="{bobs}"]')
    expect(bob_article.locator("mark.mention.me")).to_have_text("@alice", timeout=10_000)
    expect(bob_article).to_have_class("message mentions-me")
    expect(bob_article.locator(".body")).to_contain_text("<b>bold</b>")
    assert bob_article.locator(".body b").count() == 0

    # Alice edits her own message in place: Enter saves, every node shows the new text
    own = alice.locator(f'article[data-id="{mine}"]')
    own.hover()
    own.get_by_role("button", name="Edit", exact=True).click()
    editor = own.locator("textarea.edit-input")
    editor.fill("lunch at one")
    editor.press("Enter")
    expect(alice.locator(f'article[data-id="{mine}"] .body')).to_have_text("lunch at one", timeout=10_000)
    wait_until(lambda: any(m["id"] == mine and m["text"] == "lunch at one" and m["edits"] == 1
                           for m in history(nodes, "carol", chat)), "carol to show the edit")
    alice.locator(f'article[data-id="{mine}"]').get_by_role("button", name="edited").click()
    versions = alice.locator("dialog.versions li")
    expect(versions).to_have_count(2)
    expect(versions.nth(0)).to_contain_text("lunch at noon")
    expect(versions.nth(1)).to_contain_text("lunch at one")
    alice.locator("dialog.versions").get_by_role("button", name="Close").click()
    # Bob's message offers no Edit to alice
    assert bob_article.get_by_role("button", name="Edit", exact=True).count() == 0

    # Bob deletes his own message for everyone: a tombstone on alice's page
    nodes.cli("bob", "delete", chat, doomed)
    tomb = alice.locator(f'article[data-id="{doomed}"]')
    expect(tomb.locator(".body.deleted")).to_have_text("Message deleted", timeout=10_000)
    expect(tomb).not_to_contain_text("wrong chat")

    # A pin from carol shows in the bar above the messages, naming her
    nodes.cli("carol", "pin", chat, mine)
    bar = alice.locator("#pins-bar")
    expect(bar).to_be_visible(timeout=10_000)
    expect(bar).to_contain_text("lunch at one")
    expect(bar).to_contain_text("pinned by")

    # The thread pane: alice replies there, the reply reaches bob as a reply to her message
    alice.locator(f'article[data-id="{mine}"]').hover()
    alice.locator(f'article[data-id="{mine}"]').get_by_role("button", name="Thread", exact=True).click()
    pane = alice.locator("dialog.thread-pane")
    expect(pane.locator(".thread-item")).to_have_count(1)
    pane.locator("textarea").fill("in the thread")
    pane.get_by_role("button", name="Reply", exact=True).click()
    wait_until(lambda: any(m["text"] == "in the thread" and any(r["id"] == mine for r in m["references"])
                           for m in history(nodes, "bob", chat)), "bob to get the thread reply")
    expect(alice.locator(f'article[data-id="{mine}"]').locator(".actions button", has_text="Thread (1)")).to_have_count(1, timeout=10_000)

    # Alice deletes her poll from its card: it becomes a tombstone, and no node has results for it
    poll = nodes.cli("alice", "poll", "create", chat, "Pizza?")
    card = alice.locator(f'article.poll[data-id="{poll}"]')
    expect(card).to_be_visible(timeout=10_000)
    card.hover()
    card.locator(".actions button", has_text="Delete").click()
    alice.locator("dialog.confirm").get_by_role("button", name="Delete for everyone").click()
    expect(alice.locator(f'article[data-id="{poll}"] .body.deleted')).to_have_text("Message deleted", timeout=10_000)
    expect(alice.locator(f'article.poll[data-id="{poll}"]')).to_have_count(0)
    wait_until(lambda: fails(nodes, "bob", "poll", "results", chat, poll), "bob's node to refuse the deleted poll's results")


def main():
    nodes = Trio()
    problems = []

    def in_a_page(browser):
        alice = open_page(browser, nodes, "alice", 1280, 800, problems)
        everyday_verbs_work_in_the_page(nodes, alice)
    in_a_page.__name__ = everyday_verbs_work_in_the_page.__name__
    run_tests(nodes, [in_a_page], lambda browser: (browser,), problems=problems)


if __name__ == "__main__":
    main()
