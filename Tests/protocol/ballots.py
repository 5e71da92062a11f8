#!/usr/bin/env python3
"""Secret ballots (docs/BALLOTS.md), written again in Python from the document: an independent
implementation that makes the test vectors of §7 and checks them.

  python3 Tests/protocol/ballots.py                      prints the vectors (the block of §7)
  python3 Tests/protocol/ballots.py --check docs/BALLOTS.md   fails unless §7's block is exactly that
  python3 Tests/protocol/ballots.py --costs              times signing and verifying (docs/BALLOTS.md §6)

Standard library, ctypes and PyNaCl only. PyNaCl has no ristretto255, so the group operations call
libsodium through ctypes; hashing (hashlib's BLAKE2b) and scalar arithmetic (Python integers modulo
the group order) are done here, not by libsodium, so that they check the Swift code rather than
repeat it.
"""
import ctypes
import ctypes.util
import hashlib
import os
import struct
import sys

from nacl.public import SealedBox
from nacl.signing import SigningKey, VerifyKey

# --- libsodium's ristretto255 group (points are 32 bytes) ---------------------------------------

def _load_sodium():
    for name in ("libsodium.so.23", ctypes.util.find_library("sodium"), "libsodium.so", "libsodium.dylib"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        raise SystemExit("libsodium not found")
    if lib.sodium_init() < 0:
        raise SystemExit("sodium_init failed")
    return lib

SODIUM = _load_sodium()
ELL = 2**252 + 27742317777372353535851937790883648493    # the order of ristretto255 (ℓ)
IDENTITY = bytes(32)


def _out():
    return ctypes.create_string_buffer(32)


def is_valid_point(p: bytes) -> bool:
    """A canonical encoding of an element other than the identity."""
    return len(p) == 32 and p != IDENTITY and SODIUM.crypto_core_ristretto255_is_valid_point(p) == 1


def from_hash(h64: bytes) -> bytes:
    assert len(h64) == 64
    out = _out()
    SODIUM.crypto_core_ristretto255_from_hash(out, h64)
    return out.raw


class IdentityResult(Exception):
    """libsodium refuses a scalar multiplication whose result is the identity: zero scalars."""


def mul(s: int, p: bytes) -> bytes:
    assert 0 <= s < ELL
    out = _out()
    if SODIUM.crypto_scalarmult_ristretto255(out, scalar_bytes(s), p) != 0:
        raise IdentityResult()
    return out.raw


def mul_base(s: int) -> bytes:
    assert 0 <= s < ELL
    out = _out()
    if SODIUM.crypto_scalarmult_ristretto255_base(out, scalar_bytes(s)) != 0:
        raise IdentityResult()
    return out.raw


def add(p: bytes, q: bytes) -> bytes:
    out = _out()
    assert SODIUM.crypto_core_ristretto255_add(out, p, q) == 0
    return out.raw


# --- scalars: little-endian, 32 bytes, canonical means below ℓ --------------------------------

def scalar_bytes(s: int) -> bytes:
    return s.to_bytes(32, "little")


def reduce64(h: bytes) -> int:
    assert len(h) == 64
    return int.from_bytes(h, "little") % ELL


def h512(*parts: bytes) -> bytes:
    return hashlib.blake2b(b"".join(parts), digest_size=64).digest()


def h256(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


def u16(n): return struct.pack(">H", n)
def u32(n): return struct.pack(">I", n)
def i64(n): return struct.pack(">q", n)
def sstr(s): b = s.encode(); assert 1 <= len(b) <= 255; return bytes([len(b)]) + b
def lstr(s): b = s.encode(); assert len(b) <= 65535; return u16(len(b)) + b


# --- §1 ballot keys ----------------------------------------------------------------------------

def ballot_secret(identity_seed: bytes, chat: bytes) -> int:
    """x = BLAKE2b-512(key = identity seed, "parley/2 ballot key" || chat id) mod ℓ."""
    assert len(identity_seed) == 32 and len(chat) == 32
    return reduce64(hashlib.blake2b(b"parley/2 ballot key" + chat, key=identity_seed, digest_size=64).digest())


def ballot_key(identity_seed: bytes, chat: bytes) -> bytes:
    return mul_base(ballot_secret(identity_seed, chat))


# --- §2 LSAG ring signatures ---------------------------------------------------------------------

MIN_RING, MAX_RING = 2, 1024


class Rejected(Exception):
    pass


def tag_base(scope: bytes) -> bytes:
    return from_hash(h512(b"parley/2 lsag tag base", scope))


def challenge_prefix(scope, ring, tag, message) -> bytes:
    return h512(b"parley/2 lsag", scope, u16(len(ring)), *ring, tag, u32(len(message)), message)


def challenge(prefix, left, right) -> int:
    return reduce64(h512(prefix, left, right))


def check_ring(ring):
    if not MIN_RING <= len(ring) <= MAX_RING:
        raise Rejected("ring size")
    if len(set(ring)) != len(ring):
        raise Rejected("a key twice")
    if not all(is_valid_point(k) for k in ring):
        raise Rejected("a key is not a point")


def test_vector_draw(k: int) -> bytes:
    """The deterministic 'randomness' of the vectors: draw k = BLAKE2b-512("parley/2 test vector draw"
    || u32 k). Only for vectors: signing twice with it reuses α, which gives the secret away."""
    return h512(b"parley/2 test vector draw", u32(k))


def random_draw(_k: int) -> bytes:
    return os.urandom(64)


def sign(message: bytes, ring, secret: int, scope: bytes, draw=random_draw) -> bytes:
    """tag I || c₀ || r₀ … rₙ₋₁. Draw 0 is α, then draws 1, 2, … are r for π+1, π+2, … round the ring."""
    check_ring(ring)
    mine = mul_base(secret)
    if mine not in ring:
        raise Rejected("the signer's key is not in the ring")
    n, pi = len(ring), ring.index(mine)
    base = tag_base(scope)
    tag = mul(secret, base)
    prefix = challenge_prefix(scope, ring, tag, message)
    c = [None] * n
    r = [None] * n
    alpha = reduce64(draw(0))
    c[(pi + 1) % n] = challenge(prefix, mul_base(alpha), mul(alpha, base))
    for step in range(1, n):
        i = (pi + step) % n
        r[i] = reduce64(draw(step))
        left = add(mul_base(r[i]), mul(c[i], ring[i]))
        right = add(mul(r[i], base), mul(c[i], tag))
        c[(i + 1) % n] = challenge(prefix, left, right)
    r[pi] = (alpha - c[pi] * secret) % ELL
    return tag + scalar_bytes(c[0]) + b"".join(scalar_bytes(x) for x in r)


def verify(signature: bytes, message: bytes, ring, scope: bytes) -> bytes:
    """Returns the linking tag, or raises Rejected."""
    check_ring(ring)
    n = len(ring)
    if len(signature) != 64 + 32 * n:
        raise Rejected("length")
    tag = signature[:32]
    if not is_valid_point(tag):
        raise Rejected("tag is not a point other than the identity")
    scalars = [int.from_bytes(signature[32 + 32 * i: 64 + 32 * i], "little") for i in range(n + 1)]
    if any(s >= ELL for s in scalars):
        raise Rejected("non-canonical scalar")
    c0, responses = scalars[0], scalars[1:]
    base = tag_base(scope)
    prefix = challenge_prefix(scope, ring, tag, message)
    current = c0
    for i in range(n):
        if responses[i] == 0 or current == 0:      # libsodium refuses the identity products
            raise Rejected("zero scalar")
        left = add(mul_base(responses[i]), mul(current, ring[i]))
        right = add(mul(responses[i], base), mul(current, tag))
        current = challenge(prefix, left, right)
    if current != c0:
        raise Rejected("the ring does not close")
    return tag


def rejected(f) -> bool:
    try:
        f()
    except Rejected:
        return True
    return False


# --- §3 encodings ------------------------------------------------------------------------------

def options_spec(question, options, closes_ms, max_votes=0, unique=False, anonymous=True, description=""):
    """An options poll's own encoding (docs/POLLS.md), as a secret poll embeds it."""
    flags = (1 if unique else 0) | (2 if anonymous else 0) | 16
    return b"\x00\x01" + bytes([flags, max_votes]) + i64(closes_ms) + lstr(question) + lstr(description) \
        + bytes([len(options)]) + b"".join(sstr(o) for o in options)


def secret_poll(form_bytes: bytes, electorate) -> bytes:
    """0x00, version 2, the form, u16 count, then (member id, ballot key) sorted by member id."""
    electorate = sorted(electorate)
    assert 3 <= len(electorate) <= 256
    return b"\x00\x02" + form_bytes + u16(len(electorate)) + b"".join(m + k for m, k in electorate)


def yes_no_form(question, closes_ms):
    return b"\x00" + i64(closes_ms) + lstr(question)


def options_form(spec: bytes):
    return b"\x01" + u16(len(spec)) + spec


def selection(ids):
    return bytes([len(ids)]) + b"".join(sstr(i) for i in ids)


def ballot_message(ids) -> bytes:
    """What a ballot's ring signature signs."""
    return b"parley/2 secret ballot" + selection(ids)


def ballot_scope(chat, poll):
    return chat + poll


def cast(chat, poll, ring, choices, ids, seed, draw=random_draw) -> bytes:
    """A ballot: version 1, poll id, selection (in the poll's choice order), u16 n, signature."""
    ids = [c for c in choices if c in ids]
    signature = sign(ballot_message(ids), ring, ballot_secret(seed, chat), ballot_scope(chat, poll), draw)
    return b"\x01" + poll + selection(ids) + u16(len(ring)) + signature


def read_ballot(ballot: bytes):
    """(poll, selection, signature); raises Rejected for a malformed encoding."""
    try:
        if ballot[0] != 1:
            raise Rejected("version")
        poll, o = ballot[1:33], 33
        count, o = ballot[o], o + 1
        ids = []
        for _ in range(count):
            length = ballot[o]
            ids.append(ballot[o + 1:o + 1 + length].decode())
            o += 1 + length
        n = struct.unpack(">H", ballot[o:o + 2])[0]
        signature = ballot[o + 2:]
        if len(poll) != 32 or n > 256 or len(signature) != 64 + 32 * n:
            raise Rejected("length")
        return poll, ids, signature
    except (IndexError, struct.error, UnicodeDecodeError) as error:
        raise Rejected(str(error))


def check_ballot(ballot, chat, poll, ring, choices, limit):
    ballot_poll, ids, signature = read_ballot(ballot)
    if ballot_poll != poll:
        raise Rejected("another poll")
    if not ids or len(ids) > limit or len(set(ids)) != len(ids) or [c for c in choices if c in ids] != ids:
        raise Rejected("selection")
    return verify(signature, ballot_message(ids), ring, ballot_scope(chat, poll))


def envelope_size(choices, limit, members) -> int:
    """One size per poll: its largest ballot (the most choices, the longest id) and the 37-byte
    header, rounded up to a multiple of 512."""
    longest = max(len(c.encode()) for c in choices)
    selection = 1 + min(limit, len(choices)) * (1 + longest)
    ballot = 1 + 32 + selection + 2 + 64 + 32 * members
    return -(-(37 + ballot) // 512) * 512


def envelope(chat, ballot, size) -> bytes:
    """Version 1, chat, u32 length, ballot, zeros up to the poll's envelope size (at most 12,288)."""
    plain = b"\x01" + chat + u32(len(ballot)) + ballot
    assert size % 512 == 0 and len(plain) <= size <= 12 * 1024
    return plain + bytes(size - len(plain))


def ballot_relay_frame(publisher_id: bytes, hold_ms: int, padded_envelope: bytes) -> bytes:
    """Frame kind 12: publisher id || u32 hold (ms) || the envelope sealed to the publisher's X25519 key (random)."""
    sealed = SealedBox(VerifyKey(publisher_id).to_curve25519_public_key()).encrypt(padded_envelope)
    body = publisher_id + u32(hold_ms) + sealed
    return b"\x0c" + u32(len(body)) + body


# --- §4 suppression: a publisher's commitment and reveal ----------------------------------------

COMMITMENT_LABEL = b"parley/2 ballot commitment"


def commitment_entry(salt: bytes, ballot: bytes) -> bytes:
    """BLAKE2b-256(key = salt, "parley/2 ballot commitment" || BLAKE2b-256(ballot))."""
    assert len(salt) == 32
    return hashlib.blake2b(COMMITMENT_LABEL + h256(ballot), digest_size=32, key=salt).digest()


def commitment(salted) -> bytes:
    """`PollBallotCommit` content: version 1, u16 count, the entries strictly ascending."""
    entries = sorted({commitment_entry(salt, ballot) for salt, ballot in salted})
    assert 1 <= len(entries) == len(salted) <= 256
    return b"\x01" + u16(len(entries)) + b"".join(entries)


def reveal(salt: bytes, ballot: bytes) -> bytes:
    """`PollBallotReveal` content: version 1, the salt (32), the ballot."""
    return b"\x01" + salt + ballot


def revealed_in(commitment_content: bytes, reveal_content: bytes) -> bool:
    assert commitment_content[0] == 1 and reveal_content[0] == 1
    count = struct.unpack(">H", commitment_content[1:3])[0]
    entries = [commitment_content[3 + 32 * i:35 + 32 * i] for i in range(count)]
    assert len(commitment_content) == 3 + 32 * count and entries == sorted(set(entries))
    return commitment_entry(reveal_content[1:33], reveal_content[33:]) in entries


# --- §7 the vectors ----------------------------------------------------------------------------

def vectors():
    out = []
    def put(name, value):
        out.append((name, value if isinstance(value, str) else value.hex()))

    seeds = {name: bytes([b]) * 32 for name, b in (("alice", 1), ("bob", 2), ("carol", 3), ("dave", 4))}
    ids = {name: bytes(SigningKey(seed).verify_key) for name, seed in seeds.items()}
    chat, yes_no_poll, options_poll = b"\xcc" * 32, b"\xdd" * 32, b"\xee" * 32
    closes = 1_800_000_000_000
    keys = {name: ballot_key(seeds[name], chat) for name in seeds}

    electorate = sorted((ids[n], keys[n]) for n in ("alice", "bob", "carol"))
    ring = [k for _, k in electorate]
    assert [m for m, _ in electorate] == [ids["bob"], ids["alice"], ids["carol"]]

    yes_no = secret_poll(yes_no_form("Pizza?", closes), electorate)
    spec = options_spec("Lunch?", ["Pizza", "Sushi", "Tacos"], closes, max_votes=2)
    options = secret_poll(options_form(spec), electorate)

    yes_no_scope, options_scope = ballot_scope(chat, yes_no_poll), ballot_scope(chat, options_poll)
    alice_ballot = cast(chat, yes_no_poll, ring, ["up", "down"], ["up"], seeds["alice"], test_vector_draw)
    _, _, alice_signature = read_ballot(alice_ballot)
    bob_ballot = cast(chat, options_poll, ring, ["1", "2", "3"], ["3", "1"], seeds["bob"], test_vector_draw)
    alice_envelope = envelope(chat, alice_ballot, envelope_size(["up", "down"], 1, len(ring)))

    for name in ("alice", "bob", "carol", "dave"):
        put(f"{name} seed", seeds[name])
    put("chat id", chat)
    put("yes/no poll id", yes_no_poll)
    put("options poll id", options_poll)
    for k in range(3):
        put(f"draw {k}", test_vector_draw(k))
    for name in ("alice", "bob", "carol"):
        put(f"{name} id", ids[name])
    for name in ("alice", "bob", "carol", "dave"):
        put(f"{name} ballot key", keys[name])
    put("yes/no poll content", yes_no)
    put("options poll content", options)
    put("yes/no tag base", tag_base(yes_no_scope))
    put("alice yes/no tag", mul(ballot_secret(seeds["alice"], chat), tag_base(yes_no_scope)))
    put("alice yes/no signature", alice_signature)
    put("alice yes/no ballot", alice_ballot)
    put("alice yes/no envelope hash", h256(alice_envelope))
    put("options tag base", tag_base(options_scope))
    put("alice options tag", mul(ballot_secret(seeds["alice"], chat), tag_base(options_scope)))
    put("bob options ballot", bob_ballot)
    salt_one, salt_two = b"\x5a" * 32, b"\x6b" * 32
    committed = commitment([(salt_one, alice_ballot), (salt_two, bob_ballot)])
    put("commitment salt 1", salt_one)
    put("commitment salt 2", salt_two)
    put("alice yes/no commitment entry", commitment_entry(salt_one, alice_ballot))
    put("bob options commitment entry", commitment_entry(salt_two, bob_ballot))
    put("commitment content", committed)
    put("alice yes/no reveal hash", h256(reveal(salt_one, alice_ballot)))
    assert revealed_in(committed, reveal(salt_one, alice_ballot)) and revealed_in(committed, reveal(salt_two, bob_ballot))
    assert not revealed_in(committed, reveal(salt_two, alice_ballot))   # a salt belongs to its own entry

    # The checks every vector must pass, and the negative vectors every verifier must reject.
    assert check_ballot(alice_ballot, chat, yes_no_poll, ring, ["up", "down"], 1) == alice_signature[:32]
    assert check_ballot(bob_ballot, chat, options_poll, ring, ["1", "2", "3"], 2) == bob_ballot[-160:-128]
    assert len(alice_ballot) == 199 and len(alice_envelope) == 512
    assert alice_envelope[:37] == b"\x01" + chat + u32(199) and alice_envelope[236:] == bytes(276)
    message = ballot_message(["up"])

    flipped = bytearray(alice_signature)
    flipped[64] ^= 0x01                                        # byte 0 of r₀
    flipped = bytes(flipped)
    assert rejected(lambda: verify(flipped, message, ring, yes_no_scope))
    put("reject: flipped response", flipped)

    c0 = int.from_bytes(alice_signature[32:64], "little")
    unreduced = alice_signature[:32] + scalar_bytes(c0 + ELL) + alice_signature[64:]   # c₀ + ℓ: same value mod ℓ
    assert rejected(lambda: verify(unreduced, message, ring, yes_no_scope))
    put("reject: c0 + l", unreduced)

    identity_tag = IDENTITY + alice_signature[32:]
    assert rejected(lambda: verify(identity_tag, message, ring, yes_no_scope))
    put("reject: identity tag", identity_tag)

    outside = [k if k != keys["alice"] else keys["dave"] for k in ring]
    assert rejected(lambda: sign(message, ring, ballot_secret(seeds["dave"], chat), yes_no_scope, test_vector_draw))
    assert rejected(lambda: verify(alice_signature, message, outside, yes_no_scope))
    assert rejected(lambda: verify(alice_signature, message, [ring[1], ring[0], ring[2]], yes_no_scope))
    assert rejected(lambda: verify(alice_signature, message, ring, options_scope))
    assert rejected(lambda: verify(alice_signature, ballot_message(["down"]), ring, yes_no_scope))
    assert rejected(lambda: check_ballot(alice_ballot, chat, options_poll, ring, ["up", "down"], 1))
    return out


def self_test():
    """Beyond the vectors: random signatures by every member of a ring of 5 verify, and link."""
    chat = os.urandom(32)
    seeds = [os.urandom(32) for _ in range(5)]
    ring = sorted(ballot_key(s, chat) for s in seeds)
    scope, other = os.urandom(64), os.urandom(64)
    for seed in seeds:
        x = ballot_secret(seed, chat)
        first = sign(b"one", ring, x, scope)
        second = sign(b"two", ring, x, scope)
        assert verify(first, b"one", ring, scope) == verify(second, b"two", ring, scope) == mul(x, tag_base(scope))
        assert verify(sign(b"one", ring, x, other), b"one", ring, other) != first[:32]
        assert rejected(lambda: verify(first, b"two", ring, scope))
    # the frame of a relayed envelope opens with the publisher's identity
    publisher = SigningKey(os.urandom(32))
    frame = ballot_relay_frame(bytes(publisher.verify_key), 5000, envelope(chat, b"ballot", 512))
    opened = SealedBox(publisher.to_curve25519_private_key()).decrypt(frame[41:])
    assert frame[0] == 12 and struct.unpack(">I", frame[1:5])[0] == len(frame) - 5 and opened == envelope(chat, b"ballot", 512)
    assert struct.unpack(">I", frame[37:41])[0] == 5000


def costs():
    """Median sign and verify times over rings of 10, 50 and 200 keys, through ctypes."""
    import time
    chat, scope = os.urandom(32), os.urandom(64)
    message = ballot_message(["up"])
    for size in (10, 50, 200):
        seeds = [os.urandom(32) for _ in range(size)]
        ring = sorted(ballot_key(s, chat) for s in seeds)
        x = ballot_secret(seeds[size // 2], chat)
        rounds = 11 if size == 200 else 31
        signs, verifies = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            signature = sign(message, ring, x, scope)
            signs.append(time.perf_counter() - start)
            start = time.perf_counter()
            verify(signature, message, ring, scope)
            verifies.append(time.perf_counter() - start)
        signs.sort()
        verifies.sort()
        print(f"python+ctypes LSAG, {size} members: signature {len(signature)} B, "
              f"sign {signs[rounds // 2] * 1e3:.2f} ms, verify {verifies[rounds // 2] * 1e3:.2f} ms (median of {rounds})")


def render(pairs, width=128) -> str:
    """name = hex, long values continued on lines indented by 4 spaces, `width` hex digits each."""
    lines = []
    for name, value in pairs:
        head = f"{name} = "
        lines.append(head + value[:width])
        for start in range(width, len(value), width):
            lines.append("    " + value[start:start + width])
    return "\n".join(lines) + "\n"


def document_block(path) -> str:
    """§7's fenced block that starts with the line `alice seed = …`."""
    text = open(path, encoding="utf-8").read()
    section = text[text.index("## 7. Test vectors"):]
    start = section.index("```text\nalice seed = ") + len("```text\n")
    return section[start:section.index("```", start)]


def main(argv):
    self_test()
    block = render(vectors())
    if len(argv) == 3 and argv[1] == "--check":
        written = document_block(argv[2])
        if written != block:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                written.splitlines(True), block.splitlines(True), f"{argv[2]} §7", "Tests/protocol/ballots.py"))
            raise SystemExit(f"{argv[2]} §7 does not match what ballots.py computes")
        print(f"{argv[2]} §7: {block.count(' = ')} vectors match the Python implementation")
    elif argv[1:] == ["--costs"]:
        costs()
    elif len(argv) == 1:
        sys.stdout.write(block)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
