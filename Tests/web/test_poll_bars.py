"""The page draws a poll's bars by the one rule the full screen uses (PollBar, sent as the results'
`bars`): each bar filled to its share of the ballots cast, a star only on the sole leader of a closed
poll (a secret one too), and an options poll's bars starting at the same x with the same width. Four real nodes, alice's
page in Debian's Chromium (Playwright); the polls are made and voted on with the CLI.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import json, time

from playwright.sync_api import expect

from webnodes import Trio, open_chat, open_page, run_tests


def results(nodes, chat, poll):
    return json.loads(nodes.cli("alice", "poll", "results", chat, poll, "--json"))


def wait_for_votes(nodes, chat, poll, total):
    for _ in range(150):
        if results(nodes, chat, poll)["totalVotes"] == total:
            return
        time.sleep(0.1)
    raise RuntimeError(f"poll {poll} never reached {total} votes on alice's node")


def drawn(card):
    """Each row's fill width over its bar's width, whether it is starred, and the bar's box."""
    return card.evaluate("""(card) => [...card.querySelectorAll(".option-row")].map((row) => {
      const bar = row.querySelector(".bar").getBoundingClientRect();
      const fill = row.querySelector(".bar .fill").getBoundingClientRect();
      return { share: fill.width / bar.width, star: row.querySelector(".star") !== null, x: bar.x, width: bar.width };
    })""")


# A secret poll's closing time: long enough for it to reach bob and carol and for their ballots.
SECRET_CLOSES_IN = "+12s"
# The creator's node closes a secret poll this long after its closing time (ballotReleaseWindow).
RELEASE_WINDOW_SECONDS = 15


class Quartet(Trio):
    """alice, bob, carol and dave: a secret poll needs three members besides its creator."""
    names = ["alice", "bob", "carol", "dave"]


def a_secret_tie(nodes):
    """A secret options poll that closes 1–1 (alice Lake, bob Hills): no star, as on any other poll.
    Posted first, so its closing time and release window pass while the other polls are checked."""
    members = [argument for name in nodes.names[1:] for argument in ("--member", name)]
    chat = nodes.cli("alice", "chat", "create", "Ballot tie", *members)
    for name in nodes.names[1:]:
        nodes.wait_for(name, "messages", chat)
    poll = nodes.cli("alice", "poll", "create", chat, "Secret where?", "--option", "Lake", "--option", "Hills",
                     "--secret", "--closes-at", SECRET_CLOSES_IN)
    nodes.cli("alice", "poll", "vote", chat, poll, "Lake")
    nodes.wait_for("bob", "poll", "results", chat, poll)
    nodes.cli("bob", "poll", "vote", chat, poll, "Hills")
    return chat, poll


def the_secret_tie_is_drawn_as_the_rule_says(nodes, alice, chat, poll):
    expect(alice.locator(".chat-item", has_text="Ballot tie")).to_be_visible(timeout=10_000)
    open_chat(alice, "Ballot tie")
    card = alice.locator(".poll.secret", has_text="Secret where?")
    expect(card.locator(".poll-status")).to_have_text("Closed · tie: Lake, Hills", timeout=(12 + RELEASE_WINDOW_SECONDS + 30) * 1000)
    rule = results(nodes, chat, poll)["bars"]
    assert [(bar["votes"], bar["share"], bar["winner"]) for bar in rule] == [(1, 0.5, False), (1, 0.5, False)], rule
    expect(card.locator(".option-row .count")).to_have_text(["1", "1"], timeout=10_000)
    alice.wait_for_timeout(400)  # the fill's width transition (0.3 s)
    rows = drawn(card)
    # neither leader starred (the API's `winners` lists both: the page must not draw from it)
    assert [row["star"] for row in rows] == [False, False], rows
    assert all(abs(row["share"] - 0.5) < 0.02 for row in rows), rows


def closed_polls_are_drawn_as_the_rule_says(nodes, alice):
    chat = nodes.cli("alice", "chat", "create", "Bars", "--member", "bob")
    nodes.wait_for("bob", "messages", chat)
    # A 1–1 yes/no poll, closed: two half bars and no star (a tie)
    tie = nodes.cli("alice", "poll", "create", chat, "Tie?")
    nodes.cli("alice", "poll", "vote", chat, tie, "up")
    nodes.wait_for("bob", "poll", "vote", chat, tie, "down")
    wait_for_votes(nodes, chat, tie, 2)
    nodes.cli("alice", "poll", "close", chat, tie)
    # An options poll of two choices each, 2–1–0 once closed: shares 1, ½ and 0, and Lake leads alone
    where = nodes.cli("alice", "poll", "create", chat, "Where?", "--option", "Lake", "--option", "Hills",
                      "--option", "A much longer third option", "--max-votes", "2")
    nodes.cli("alice", "poll", "vote", chat, where, "Lake", "Hills")
    nodes.wait_for("bob", "poll", "vote", chat, where, "Lake")
    wait_for_votes(nodes, chat, where, 3)
    nodes.cli("alice", "poll", "close", chat, where)

    expect(alice.locator(".chat-item", has_text="Bars")).to_be_visible(timeout=10_000)
    open_chat(alice, "Bars")
    for poll, question in [(tie, "Tie?"), (where, "Where?")]:
        card = alice.locator(".poll", has_text=question)
        expect(card.locator(".poll-status")).to_contain_text("Closed", timeout=10_000)
        rule = results(nodes, chat, poll)["bars"]
        # the page's rows, in the order of the rule's bars, filled to its shares, starred as it stars
        expect(card.locator(".option-row .count")).to_have_text([str(bar["votes"]) for bar in rule], timeout=10_000)
        alice.wait_for_timeout(400)  # the fill's width transition (0.3 s)
        rows = drawn(card)
        assert [abs(row["share"] - bar["share"]) < 0.02 for row, bar in zip(rows, rule)] == [True] * len(rule), (rows, rule)
        assert [row["star"] for row in rows] == [bar["winner"] for bar in rule], (rows, rule)
        # every bar starts at the same x and is as wide as the others
        assert len({round(row["x"]) for row in rows}) == 1 and len({round(row["width"]) for row in rows}) == 1, rows
    assert [bar["share"] for bar in results(nodes, chat, tie)["bars"]] == [0.5, 0.5]
    assert [(bar["share"], bar["winner"]) for bar in results(nodes, chat, where)["bars"]] == [(1, True), (0.5, False), (0, False)]
    expect(alice.locator(".poll", has_text="Tie?").locator(".poll-status")).to_have_text("Closed · tie: Yes, No")


def main():
    nodes = Quartet()
    problems = []

    def in_a_page(browser):
        alice = open_page(browser, nodes, "alice", 1280, 800, problems)
        secret = a_secret_tie(nodes)
        closed_polls_are_drawn_as_the_rule_says(nodes, alice)
        the_secret_tie_is_drawn_as_the_rule_says(nodes, alice, *secret)
    in_a_page.__name__ = closed_polls_are_drawn_as_the_rule_says.__name__
    run_tests(nodes, [in_a_page], lambda browser: (browser,), problems=problems)


if __name__ == "__main__":
    main()
