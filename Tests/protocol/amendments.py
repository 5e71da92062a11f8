"""An independent check of docs/PROTOCOL.md §13d (edits, deletions, pins, threads, mentions), written
from the document alone: nothing here comes from the Swift code.

Reads Tests/protocol/amendment-vectors.json (which Tests/ParleyCoreTests/AmendmentVectorsTests.swift
computes with the Swift rules and keeps from going stale), decodes the invite (§4.2) and every message
(§4.1) from their bytes, checks heads' signatures and that every chained message is vouched for,
finds the forks (§4.4) from the messages themselves, then derives what each message shows, who deleted
or pinned it, its replies, the refusal counters (§16) and the mentions, and fails on any difference.
Shuffled copies of the messages must derive the same (the rules do not depend on arrival order),
and the message bytes §13d shows must be among the vectors'.
Run: python3 Tests/protocol/amendments.py [VECTORS.json]
"""
import hashlib, json, random, re, sys, unicodedata
from nacl.signing import VerifyKey

SHOWN = {"Text", "Custom", "Poll", "File"}  # what can be replied to, pinned and deleted (§13d, §13e)
CHAIN_LABEL = b"parley/2 chain head"


def h256(b):
    return hashlib.blake2b(b, digest_size=32).digest()


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        assert self.at + n <= len(self.data), "truncated"
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def u(self, n):
        return int.from_bytes(self.take(n), "big")

    def short_string(self, low=0, high=255):
        raw = self.take(self.u(1))
        assert low <= len(raw) <= high, "string length"
        return raw.decode("utf-8")  # strict: invalid UTF-8 is malformed


def tag_ok(tag):
    return 1 <= len(tag.encode()) <= 64 and not any(unicodedata.category(c) == "Cc" for c in tag)


def decode_invite(data):
    """(chat id, creator, members) of a signed chat invite, kind 0x02 or 0x03 (§4.2)."""
    r = Reader(data)
    assert r.u(1) == 2, "version"
    kind = r.u(1)
    assert kind in (2, 3), "invite kind"
    creator = r.take(32)
    r.take(8 + 16)  # created at, nonce
    if kind == 3:
        assert r.u(1) in (1, 2), "chat kind"
    r.short_string(0, 200)  # title
    members = [r.take(32) for _ in range(r.u(2))]
    assert members == sorted(set(members)) and creator in members, "members"
    if kind == 3:
        for _ in members:
            r.take(r.u(2))
    signature = r.take(64)
    assert r.at == len(data), "trailing bytes"
    VerifyKey(creator).verify(data[:-64], signature)
    return h256(data), creator, members


def decode_message(data):
    """A message (§4.1) as a dict; heads' signatures verified."""
    r = Reader(data)
    assert r.u(1) == 2 and r.u(1) == 1, "version or kind"
    m = {"chat": r.take(32), "author": r.take(32), "sequence": r.u(8), "previous": r.take(32)}
    m["lamport"], m["timestamp"] = r.u(8), int.from_bytes(r.take(8), "big", signed=True)
    m["tag"] = r.short_string(1, 64)
    assert tag_ok(m["tag"]), "tag"
    count = r.u(1)
    assert count <= 32, "references"
    m["references"] = []
    for _ in range(count):
        target = r.take(32)
        tag = r.short_string(1, 64)
        assert tag_ok(tag), "reference tag"
        m["references"].append((target, tag))
    length = r.u(4)
    assert length <= 60000, "content length"
    m["content"] = r.take(length)
    assert m["sequence"] >= 1 and (m["sequence"] > 1 or m["previous"] == bytes(32)), "sequence"
    body = data[:r.at]
    m["id"] = h256(body)
    seal = r.u(1)
    assert seal in (0, 1), "seal"
    m["head"] = seal == 1
    if m["head"]:
        VerifyKey(m["author"]).verify(CHAIN_LABEL + m["id"], r.take(64))
    assert r.at == len(data), "trailing bytes"
    return m


def check_vouched(messages):
    """Every chained message is named as `previous` by its author's message one sequence above."""
    named = {(m["chat"], m["author"], m["sequence"] - 1, m["previous"]) for m in messages}
    for m in messages:
        if not m["head"]:
            assert (m["chat"], m["author"], m["sequence"], m["id"]) in named, "a chained message nothing vouches for"


def forks(messages):
    """Author -> the lowest forked sequence (§4.4): two messages for one slot, or a message at n + 1
    whose previous is not the id of the author's message at n."""
    slots = {}
    for m in messages:
        slots.setdefault((m["author"], m["sequence"]), set()).add(m["id"])
    found = {}
    for (author, sequence), ids in slots.items():
        if len(ids) > 1:
            found[author] = min(found.get(author, sequence), sequence)
    for m in messages:
        below = slots.get((m["author"], m["sequence"] - 1))
        if below and m["previous"] not in below:
            found[m["author"]] = min(found.get(m["author"], m["sequence"] - 1), m["sequence"] - 1)
    return found


def check_fork_proof(data, author, sequence):
    """Format 1, two branches; the first messages of each name the same author and the forked slot."""
    r = Reader(data)
    assert r.u(1) == 1, "proof format"
    firsts = []
    for _ in range(2):
        n = r.u(2)
        assert 1 <= n <= 128
        branch = [decode_message(r.take(r.u(4))) for _ in range(n)]
        assert branch[-1]["head"], "a branch ends at a head"
        firsts.append(branch[0])
    assert r.at == len(data), "trailing bytes"
    a, b = firsts
    assert a["author"] == b["author"] == author and a["sequence"] == sequence
    assert (b["sequence"] == a["sequence"] and b["id"] != a["id"]) or (
        b["sequence"] == a["sequence"] + 1 and b["previous"] != a["id"]), "branches agree"


def history(m):
    return (m["lamport"], m["author"], m["sequence"])


def chain(m):
    return (m["sequence"], m["id"])


def target_of(m):
    """The one message an Edit, Delete or Pin references with its own tag, or None (§13d)."""
    named = [target for target, tag in m["references"] if tag == m["tag"]]
    return named[0] if len(named) == 1 else None


def refusal(m, target, creator):
    """Why an amendment changes nothing on `target`, or None; checked in this order (§13d)."""
    if m["chat"] != target["chat"]:
        return "otherChat"
    if m["tag"] == "Edit":
        if m["author"] != target["author"]:
            return "notAuthor"
        return None if target["tag"] == "Text" else "notEditable"
    if m["tag"] == "Delete":
        if target["tag"] not in SHOWN:
            return "notDeletable"
        return None if m["author"] in (target["author"], creator) else "notAllowed"
    if target["tag"] not in SHOWN:
        return "notPinnable"
    return None if m["content"] in (b"\x00", b"\x01") else "malformed"


COUNTER = {"notAuthor": "editNotAuthor", "notAllowed": "deleteNotAllowed"}


def counters(messages, creator):
    """The §16 counter each Edit, Delete or Pin is refused under as it is stored, or None."""
    held = {m["id"]: m for m in messages}
    out = {}
    for m in messages:
        if m["tag"] not in ("Edit", "Delete", "Pin"):
            continue
        target = target_of(m)
        if target is None:
            out[m["id"].hex()] = "amendmentNotApplicable"
        elif target not in held:
            out[m["id"].hex()] = None  # waits for its target
        else:
            reason = refusal(m, held[target], creator)
            out[m["id"].hex()] = reason and COUNTER.get(reason, "amendmentNotApplicable")
    return out


def counted(messages, target, tag, creator):
    return [m for m in messages if m["tag"] == tag and target_of(m) == target["id"]
            and refusal(m, target, creator) is None]


def derive(messages, creator, forked):
    """What every counting Text, Custom or Poll message shows, by id."""
    counting = [m for m in messages if m["sequence"] < forked.get(m["author"], 2**64)]
    out = {}
    for t in counting:
        if t["tag"] not in SHOWN:
            continue
        deletions = counted(counting, t, "Delete", creator)
        deletion = min(deletions, key=history) if deletions else None
        edits, pin = [], None
        if deletion is None:
            edits = sorted({e["id"]: e for e in counted(counting, t, "Edit", creator)}.values(), key=chain)
            pins = counted(counting, t, "Pin", creator)
            latest = max(pins, key=history) if pins else None
            pin = latest if latest is not None and latest["content"] == b"\x01" else None
        replies = sum(1 for m in counting if m["chat"] == t["chat"] and m["tag"] in SHOWN
                      and (t["id"], t["tag"]) in m["references"])
        shown = None if deletion else (edits[-1] if edits else t)["content"].decode("utf-8", "replace")
        out[t["id"].hex()] = {
            "id": t["id"].hex(), "tag": t["tag"], "shown": shown, "edits": [e["id"].hex() for e in edits],
            "deletedBy": deletion and deletion["author"].hex(), "pinnedBy": pin and pin["author"].hex(),
            "replies": replies,
            "mentions": unique_mentions(shown) if shown is not None and t["tag"] == "Text" else []}
    return out


HEX = set("0123456789abcdef")


def extends_grapheme(c):
    """A code point that joins the one before it into one user-perceived character (Unicode
    Grapheme_Cluster_Break Extend, ZWJ or SpacingMark, near enough): a `>` followed by one is not a token's end."""
    cp = ord(c)
    return (unicodedata.category(c) in ("Mn", "Me", "Mc") or cp in (0x200C, 0x200D)
            or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F)


def pieces(text):
    """The text split into plain runs (str) and mentions (32-byte ids), per §13d."""
    out, i, run = [], 0, 0
    while True:
        start = text.find("<@", i)
        if start < 0:
            break
        digits, end = text[start + 2:start + 66], start + 66
        if (len(digits) == 64 and set(digits) <= HEX and text[end:end + 1] == ">"
                and not (end + 1 < len(text) and extends_grapheme(text[end + 1]))):
            out.append(text[run:start])
            out.append(bytes.fromhex(digits))
            i = run = end + 1
        else:
            i = start + 2
    out.append(text[run:])
    return out


def unique_mentions(text):
    return [p.hex() for p in dict.fromkeys(p for p in pieces(text) if isinstance(p, bytes))]


def rendered(text, names):
    return "".join(p if isinstance(p, str) else "@" + names.get(p.hex(), p.hex()[:8]) for p in pieces(text))


def main(path):
    vectors = json.load(open(path, encoding="utf-8"))
    chat, creator, members = decode_invite(bytes.fromhex(vectors["invite"]))
    messages = [decode_message(bytes.fromhex(h)) for h in vectors["messages"]]
    assert all(m["chat"] == chat and m["author"] in members for m in messages), "a message of another chat or author"
    check_vouched(messages)
    forked = forks(messages)
    expected_forks = {bytes.fromhex(f["author"]): f["sequence"] for f in vectors["forks"]}
    assert forked == expected_forks, f"forks {forked} != {expected_forks}"
    for author, sequence in forked.items():
        check_fork_proof(bytes.fromhex(vectors["forkProof"]), author, sequence)

    expected = {t["id"]: {**{"shown": None, "deletedBy": None, "pinnedBy": None}, **t} for t in vectors["targets"]}
    failures = 0
    shuffled = random.Random(13)
    for attempt in range(8):
        order = list(messages)
        if attempt:
            shuffled.shuffle(order)
        derived = derive(order, creator, forks(order))
        if derived != expected:
            failures += 1
            for key in sorted(set(derived) | set(expected)):
                if derived.get(key) != expected.get(key):
                    print("target", key[:8], "derived", derived.get(key), "expected", expected.get(key))
            break
    refusals = {r["id"]: r.get("counter") for r in vectors["refusals"]}
    got = counters(messages, creator)
    if got != refusals:
        failures += 1
        for key in sorted(set(got) | set(refusals)):
            if got.get(key) != refusals.get(key):
                print("refusal", key[:8], "derived", got.get(key), "expected", refusals.get(key))
    for case in vectors["mentionCases"]:
        found, shown = unique_mentions(case["text"]), rendered(case["text"], vectors["names"])
        if found != case["mentions"] or shown != case["rendered"]:
            failures += 1
            print("mentions of", repr(case["text"]), "derived", found, repr(shown), "expected",
                  case["mentions"], repr(case["rendered"]))
    doc = open("docs/PROTOCOL.md", encoding="utf-8").read()
    section = doc[doc.index("## 13d."):doc.index("## 13e.")]
    for block in re.findall(r"```\n(.*?)```", section, re.S):
        if "".join(block.split()) not in vectors["messages"]:
            failures += 1
            print("PROTOCOL.md §13d shows a message the vectors do not hold:", block[:40])
    if failures:
        raise SystemExit("PROTOCOL §13d vectors: %d difference(s)" % failures)
    print("PROTOCOL §13d vectors: %d messages, %d targets, %d refusals, %d mention cases: ok"
          % (len(messages), len(expected), sum(1 for v in refusals.values() if v), len(vectors["mentionCases"])))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Tests/protocol/amendment-vectors.json")
