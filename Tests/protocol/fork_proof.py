"""An independent check of docs/PROTOCOL.md §4.4 (fork proofs), written from the document alone.

Builds the section's vector (alice signs two messages for sequence 1 of the §4.3 legacy chat, then
a message at sequence 2 naming the first), prints it, and checks a proof the way a receiver must:
every branch one linked run of the author's messages topped by a verifying head, the branches
disagreeing about one slot. Run: python3 Tests/protocol/fork_proof.py [--hex] [PROOF_HEX]
"""
import hashlib, struct, sys
from nacl.signing import SigningKey, VerifyKey
from nacl.exceptions import BadSignatureError

def h256(b): return hashlib.blake2b(b, digest_size=32).digest()
def sstr(s): b = s.encode(); return bytes([len(b)]) + b

def message(author, chat, seq, previous, lamport, ts, tag, content, head=True):
    body = b"\x02\x01" + chat + bytes(author.verify_key) + struct.pack(">Q", seq) + (previous or bytes(32)) \
         + struct.pack(">Qq", lamport, ts) + sstr(tag) + b"\x00" + struct.pack(">I", len(content)) + content
    mid = h256(body)
    return (body + b"\x01" + author.sign(b"parley/2 chain head" + mid).signature if head else body + b"\x00"), mid

def decode(m):
    """(chat, author, seq, previous, id, head, signature) of a message encoding (§4.1), references skipped."""
    chat, author, seq, previous = m[2:34], m[34:66], struct.unpack(">Q", m[66:74])[0], m[74:106]
    o = 122; o += 1 + m[o]
    refs = m[o]; o += 1
    for _ in range(refs): o += 32; o += 1 + m[o]
    c = struct.unpack(">I", m[o:o + 4])[0]; o += 4 + c
    seal = m[o]
    assert seal in (0, 1) and len(m) == o + 1 + 64 * seal, "bad seal or trailing bytes"
    return chat, author, seq, previous, h256(m[:o]), seal == 1, m[o + 1:]

def proof(first, second):
    out = b"\x01"
    for branch in (first, second):
        out += struct.pack(">H", len(branch)) + b"".join(struct.pack(">I", len(m)) + m for m in branch)
    return out

def check(p):
    assert p[0] == 1, "format"
    o, branches = 1, []
    for _ in range(2):
        n = struct.unpack(">H", p[o:o + 2])[0]; o += 2
        assert 1 <= n <= 128
        branch = []
        for _ in range(n):
            length = struct.unpack(">I", p[o:o + 4])[0]; o += 4
            branch.append(decode(p[o:o + length])); o += length
        branches.append(branch)
    assert o == len(p), "trailing bytes"
    for branch in branches:
        assert all(m[2] <= 2**63 - 1 for m in branch), "a sequence above 2^63 - 1"
        for lower, upper in zip(branch, branch[1:]):
            assert upper[:2] == lower[:2] and upper[2] == lower[2] + 1 and upper[3] == lower[4], "branch not linked"
        top = branch[-1]
        assert top[5], "branch does not end at a head"
        VerifyKey(top[1]).verify(b"parley/2 chain head" + top[4], top[6])
    a, b = branches[0][0], branches[1][0]
    assert a[:2] == b[:2], "different chats or authors"
    assert (b[2] == a[2] and b[4] != a[4]) or (b[2] == a[2] + 1 and b[3] != a[4]), "branches agree"
    return a[1], a[2]

alice = SigningKey(bytes([1]) * 32)
chat = bytes.fromhex("8ad703264ff57ef6232a1d83f8d95ce80132e40e4caed7be8636dde41cb2572b")
hi, hi_id = message(alice, chat, 1, None, 1, 42, "Text", b"hi")
bye, bye_id = message(alice, chat, 1, None, 1, 42, "Text", b"bye")
after, _ = message(alice, chat, 2, hi_id, 2, 43, "Text", b"there")
same_slot, next_slot = proof([hi], [bye]), proof([bye], [after])
assert check(same_slot) == (bytes(alice.verify_key), 1) and check(next_slot) == (bytes(alice.verify_key), 1)
for bad in (proof([hi], [hi]), proof([hi], [after])):
    try: check(bad); raise SystemExit("a proof whose branches agree was accepted")
    except AssertionError: pass
huge, _ = message(alice, chat, 2**64 - 1, None, 1, 42, "Text", b"x")
try: check(proof([huge], [hi])); raise SystemExit("a proof naming sequence 2^64 - 1 was accepted")
except AssertionError: pass
tampered = bytearray(same_slot); tampered[-1] ^= 1
try: check(bytes(tampered)); raise SystemExit("a proof with a bad signature was accepted")
except BadSignatureError: pass
print("same slot", len(same_slot), "bytes, BLAKE2b-256", h256(same_slot).hex())
print("next slot", len(next_slot), "bytes, BLAKE2b-256", h256(next_slot).hex())
if "--hex" in sys.argv: print(same_slot.hex())
for given in (arg for arg in sys.argv[1:] if arg != "--hex"):
    author, sequence = check(bytes.fromhex(given))
    print("given proof: author %s, forked sequence %d" % (author.hex(), sequence))
