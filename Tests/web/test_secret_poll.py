"""A secret poll in a real browser (Debian's Chromium, driven by Playwright): four real nodes (a secret
poll needs three members besides its creator), alice's serving the web app. alice's page creates a
secret yes/no poll that closes in a few seconds and votes on it; bob and carol vote with the CLI,
dave does not. Before the close the page shows the electorate, how many members a vote hides among,
and no counts and no voters; after it (the closing time plus the 15 s release window, when alice's node closes
the poll) the page shows the counts, live through the watch, and still no voters.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import time

from playwright.sync_api import expect

from webnodes import ROOT, Trio, open_chat, open_page, run_tests

SHOTS = ROOT / "docs/web"
# Long enough for the poll to reach bob and carol and for the three ballots before it, on a busy machine.
CLOSES_IN_SECONDS = 12
# The creator's node closes a secret poll this long after its closing time (ballotReleaseWindow).
RELEASE_WINDOW_SECONDS = 15
QUESTION = "Raise the <b>dues</b>?"

# The page's local time in `seconds`, as a datetime-local input takes it, and that instant in ms.
LOCAL_TIME_IN = """(seconds) => {
  const at = new Date(Date.now() + seconds * 1000);
  const two = (n) => String(n).padStart(2, "0");
  return [`${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`,
    Math.floor(at.getTime() / 1000) * 1000];
}"""


class Quartet(Trio):
    """alice, bob, carol and dave: a secret poll needs three members besides its creator."""
    names = ["alice", "bob", "carol", "dave"]


def assert_no_voters(card, nodes, chat, poll):
    """Neither the card nor the API names anyone as having voted, or how."""
    assert card.locator(".voters").count() == 0, card.inner_text()
    assert "Voted" not in card.inner_text(), card.inner_text()
    assert nodes.api("alice", "pollResults", {"chat": chat, "poll": poll})["voters"] == []


def main():
    nodes = Quartet()
    problems = []

    def in_a_page(browser):
        alice = open_page(browser, nodes, "alice", 1280, 800, problems)
        a_secret_poll_made_and_voted_in_the_page_shows_counts_only_at_the_close_and_never_voters(nodes, alice, problems)
    in_a_page.__name__ = a_secret_poll_made_and_voted_in_the_page_shows_counts_only_at_the_close_and_never_voters.__name__
    run_tests(nodes, [in_a_page], lambda browser: (browser,), problems=problems, logs=nodes.names)


def a_secret_poll_made_and_voted_in_the_page_shows_counts_only_at_the_close_and_never_voters(nodes, alice, problems):
    chat = nodes.cli("alice", "chat", "create", "Board", "--member", "bob", "--member", "carol", "--member", "dave")
    # bob, carol and dave take the invite (alice is their contact): all four are members with running nodes.
    for name in ["bob", "carol", "dave"]:
        nodes.wait_for(name, "messages", chat)
    expect(alice.locator(".chat-item", has_text="Board")).to_be_visible(timeout=10_000)
    open_chat(alice, "Board")

    # The form: a secret ballot without a closing time is refused with a clear message.
    alice.click("#new-poll")
    alice.fill(".poll-form input[name=question]", QUESTION)
    alice.check(".poll-form input[name=secret]")
    expect(alice.locator(".poll-form .secret-hint")).to_be_visible()
    assert alice.locator(".poll-form input[name=allowAnswers]").is_disabled()
    alice.click(".poll-form button[type=submit]")
    expect(alice.locator(".poll-form .form-error")).to_contain_text("needs a closing time")
    # With one, it is created (the node waits a few seconds for the others' ballot keys).
    local, closes_at = alice.evaluate(LOCAL_TIME_IN, CLOSES_IN_SECONDS)
    alice.fill(".poll-form input[name=closesAt]", local)
    alice.click(".poll-form button[type=submit]")
    card = alice.locator(".poll.secret")
    expect(card).to_be_visible(timeout=15_000)
    expect(alice.locator("#dialog")).not_to_be_visible()
    poll = card.get_attribute("data-id")

    # Before the close: the badge, the electorate, how many members a vote hides among (the electors
    # besides the creator), the question as its characters, and no counts.
    expect(card.locator(".secret-badge")).to_contain_text("secret ballot")
    assert card.locator(".question").inner_text() == QUESTION, card.locator(".question").inner_text()
    assert alice.locator("#messages b").count() == 0
    electorate = card.locator(".electorate")
    expect(electorate).to_contain_text("Electorate (4)")
    for name in ["you", "bob", "carol", "dave"]:
        expect(electorate).to_contain_text(name)
    expect(card.locator(".hidden-among")).to_have_text("Your vote is hidden among 3 members (the electors besides the poll's creator).")
    expect(card.locator(".secret-pending")).to_contain_text("no one sees who cast which")
    assert card.locator(".count").count() == 0 and card.locator(".bar").count() == 0, card.inner_text()

    # alice votes in the page: the receipt says how the ballot travels, and the ballot is final.
    card.locator("button.vote", has_text="Yes").click()
    expect(card.locator(".ballot-receipt")).to_contain_text("through", timeout=10_000)
    expect(card.locator(".ballot-receipt")).to_contain_text("published at the close")
    expect(card.locator(".own-ballot")).to_contain_text("Your ballot (Yes)")
    for button in card.locator("button.vote").all():
        assert button.is_disabled()

    # bob and carol vote with the CLI, as soon as the poll has reached them.
    for name, choice in [("bob", "up"), ("carol", "down")]:
        nodes.wait_for(name, "poll", "results", chat, poll)
        said = nodes.cli(name, "poll", "vote", chat, poll, choice)
        assert "secret ballot cast" in said, said

    # Still before the close: three ballots cast, and the page shows no count and no voter.
    alice.wait_for_timeout(500)
    assert card.locator(".count").count() == 0 and card.locator(".bar").count() == 0, card.inner_text()
    assert_no_voters(card, nodes, chat, poll)
    results = nodes.api("alice", "pollResults", {"chat": chat, "poll": poll})
    assert results["secret"]["resultsFinal"] is False and "counted" not in results["secret"], results
    assert time.time() * 1000 < closes_at, "the checks before the close ran after it: raise CLOSES_IN_SECONDS"
    SHOTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(SHOTS / "secret-poll-open.png"))

    # After the close (alice's node closes it the release window after the closing time), live:
    # the counts, the winner, how many electors counted, and still no voters.
    wait_ms = max(0, closes_at - time.time() * 1000) + RELEASE_WINDOW_SECONDS * 1000 + 30_000
    expect(card.locator(".poll-status")).to_have_text("Closed · winner: Yes", timeout=wait_ms)
    expect(card.locator(".secret-counts")).to_have_text("3 of 4 electors counted; 0 conflicting, 0 rejected")
    rows = card.locator(".option-row")
    expect(rows.filter(has_text="Yes").locator(".count")).to_have_text("2")
    expect(rows.filter(has_text="No").locator(".count")).to_have_text("1")
    # Her node kept only that she voted: the choice was erased at the close.
    expect(card.locator(".own-ballot")).to_have_text("You voted (your choice was erased from this node at the close): counted")
    assert card.locator(".secret-pending").count() == 0
    assert_no_voters(card, nodes, chat, poll)
    card.screenshot(path=str(SHOTS / "secret-poll-closed.png"))


if __name__ == "__main__":
    main()
