"""The page draws a poll's bars by the one rule the full screen uses (PollBar, sent as the results'
`bars`): each bar filled to its share of the ballots cast, a star only on the sole leader of a closed
poll, and an options poll's bars starting at the same x with the same width. Three real nodes, alice's
page in Debian's Chromium (Playwright); the polls are made and voted on with the CLI.

Run by Tests/web/run.sh, which installs what is missing. Prints one "N passed, M failed" line.
"""
import json, sys, time, traceback

from playwright.sync_api import expect, sync_playwright

from webnodes import CHROMIUM, Trio, open_chat, open_page


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
    nodes = Trio()
    problems = []
    passed = failed = 0
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                alice = open_page(browser, nodes, "alice", 1280, 800, problems)
                closed_polls_are_drawn_as_the_rule_says(nodes, alice)
                assert not problems, problems
                passed += 1
                print("ok   closed_polls_are_drawn_as_the_rule_says")
            except Exception:
                failed += 1
                print("FAIL closed_polls_are_drawn_as_the_rule_says")
                traceback.print_exc()
            browser.close()
    finally:
        nodes.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
