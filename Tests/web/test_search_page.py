"""The page's search box: hits of the node's own full-text search listed with their words marked
(peers' text as text), and a hit opening its chat at the message, paged back to it when it is
older than what the chat first loads. alice's page in Debian's Chromium (Playwright).

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
from playwright.sync_api import expect

from webnodes import Nodes, open_page, run_tests


def a_hit_opens_its_chat_at_the_message(nodes, alice):
    chat = nodes.cli("alice", "chat", "create", "Haystack", "--member", "bob")
    connection = nodes.connection("alice")
    nodes.api("alice", "send", {"chat": chat, "text": "the needle <img src=x onerror=alert(1)> is here"}, connection)
    for n in range(240):
        nodes.api("alice", "send", {"chat": chat, "text": f"hay {n}"}, connection)
    connection.close()
    nodes.cli("alice", "chat", "create", "Elsewhere")

    # When alice searches for a word prefix
    alice.fill("#search-text", "NEED")
    alice.press("#search-text", "Enter")

    # Then the one hit is listed with its chat, its author and the word marked, the markup as text
    hit = alice.locator(".search-hit")
    expect(hit).to_have_count(1, timeout=10_000)
    expect(hit.locator(".search-where")).to_contain_text("Haystack")
    expect(hit.locator("mark")).to_have_text("needle")
    expect(hit.locator(".search-snippet")).to_contain_text("<img src=x onerror=alert(1)>")
    assert hit.locator("img").count() == 0

    # And a click opens the chat, pages back to the message and shows it
    hit.click()
    expect(alice.locator("#chat-title")).to_have_text("Haystack")
    found = alice.locator(".item.search-found")
    expect(found).to_have_count(1, timeout=15_000)
    expect(found).to_contain_text("the needle")
    expect(found).to_be_in_viewport()

    # And a search that finds nothing says so, and the results close
    alice.fill("#search-text", "zebra")
    alice.press("#search-text", "Enter")
    expect(alice.locator(".search-empty")).to_have_text("Nothing found", timeout=10_000)
    alice.click(".search-close")
    expect(alice.locator("#search-results")).to_be_hidden()


def main():
    nodes = Nodes()
    problems = []
    run_tests(nodes, [a_hit_opens_its_chat_at_the_message],
              lambda browser: (nodes, open_page(browser, nodes, "alice", 1280, 800, problems)),
              problems=problems, logs=["alice"])


if __name__ == "__main__":
    main()
