"""An independent check of docs/PROTOCOL.md §13e (files and pictures), written from the document
alone: nothing here comes from the Swift code.

Reads Tests/protocol/file-vectors.json (which Tests/ParleyCoreTests/FileVectorsTests.swift computes
with the Swift code and keeps from going stale), decodes every manifest and checks every refused one
is refused for its rule, sanitises every name, rebuilds every hash tree, root and proof from the chunks
and verifies them (and refuses every bad proof), re-seals every chunk envelope byte for byte from the
file's bytes and opens it (and refuses every altered one for its reason), and decodes and re-encodes
every frame (and refuses every malformed one). Prints one line; exits 1 on any difference.
Run: python3 Tests/protocol/files.py [VECTORS.json]
"""
import hashlib, json, os, sys, unicodedata
from nacl.bindings import crypto_aead_xchacha20poly1305_ietf_decrypt, crypto_aead_xchacha20poly1305_ietf_encrypt
from nacl.exceptions import CryptoError

CHUNK = 65_536
PIECE = 1_140
MAX_PIECES = 64
MAX_SIZE = 1 << 40
LABEL = b"parley chunk v1"
REMOVED = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}  # control, format, separators, surrogate, private, unassigned


def h256(data):
    return hashlib.blake2b(data, digest_size=32).digest()


def u32(n):
    return n.to_bytes(4, "big")


class Refused(Exception):
    def __init__(self, rule):
        super().__init__(rule)
        self.rule = rule


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if self.at + n > len(self.data):
            raise Refused("truncated")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def u(self, n):
        return int.from_bytes(self.take(n), "big")

    def text(self, length_bytes):
        raw = self.take(self.u(length_bytes))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("utf8")

    def left(self):
        return len(self.data) - self.at


# --- names -------------------------------------------------------------------------------------------

def utf8_len(chars):
    return sum(len(c.encode()) for c in chars)


def trimmed(chars):
    start, end = 0, len(chars)
    while start < end and chars[start] in ". ":
        start += 1
    while end > start and chars[end - 1] in ". ":
        end -= 1
    return chars[start:end]


def fitted(chars):
    if utf8_len(chars) <= 255:
        return chars
    stem, ext = chars, []
    if "." in chars:
        dot = len(chars) - 1 - chars[::-1].index(".")
        if utf8_len(chars[dot:]) <= 16:
            stem, ext = chars[:dot], chars[dot:]
    stem = list(stem)
    while utf8_len(stem) > 255 - utf8_len(ext):
        stem.pop()
    return stem + list(ext)


def sanitized(raw):
    kept = [c for c in raw if c not in "/\\:" and unicodedata.category(c) not in REMOVED]
    name = "".join(trimmed(fitted(trimmed(kept))))
    return name or "file"


# --- manifests ---------------------------------------------------------------------------------------

def is_media_type(t):
    parts = t.split("/")
    allowed = set(b"abcdefghijklmnopqrstuvwxyz0123456789.+-")
    return len(t.encode()) <= 100 and len(parts) == 2 and all(p and set(p.encode()) <= allowed for p in parts)


def decode_manifest(data):
    r = Reader(data)
    if r.u(1) != 1:
        raise Refused("version")
    flags = r.u(1)
    if flags & ~1:
        raise Refused("flags")
    m = {"name": r.text(1), "size": r.u(8), "type": r.text(1), "root": r.take(32).hex(), "caption": r.text(2)}
    m["picture"] = None
    if flags & 1:
        width, height, length = r.u(4), r.u(4), r.u(2)
        if length > 8_000:
            raise Refused("thumbnail")
        m["picture"] = {"width": width, "height": height, "thumbnail": r.take(length).hex()}
    if r.left():
        raise Refused("trailing")
    if m["size"] > MAX_SIZE:
        raise Refused("size")
    if not m["name"] or len(m["name"].encode()) > 255 or sanitized(m["name"]) != m["name"]:
        raise Refused("name")
    if not is_media_type(m["type"]):
        raise Refused("type")
    if len(m["caption"].encode()) > 4_096:
        raise Refused("caption")
    if m["picture"] and not all(1 <= m["picture"][side] <= 100_000 for side in ("width", "height")):
        raise Refused("picture")
    return m


def chunk_count(size):
    return max(1, -(-size // CHUNK))


def chunk_length(size, index):
    return min(CHUNK, size - min(size, index * CHUNK))


def encode_manifest(m):
    out = bytes([1, 1 if m["picture"] else 0])
    name, kind, caption = m["name"].encode(), m["type"].encode(), m["caption"].encode()
    out += bytes([len(name)]) + name + m["size"].to_bytes(8, "big") + bytes([len(kind)]) + kind
    out += bytes.fromhex(m["root"]) + len(caption).to_bytes(2, "big") + caption
    if m["picture"]:
        p = m["picture"]
        thumb = bytes.fromhex(p["thumbnail"])
        out += u32(p["width"]) + u32(p["height"]) + len(thumb).to_bytes(2, "big") + thumb
    return out


# --- hash tree ---------------------------------------------------------------------------------------

def leaf(chunk):
    return h256(b"\x00" + chunk)


def parent(left, right):
    return h256(b"\x01" + left + right)


def levels_of(leaves):
    levels = [list(leaves)]
    while len(levels[-1]) > 1:
        level = levels[-1]
        levels.append([parent(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)])
    return levels


def proof(levels, index):
    out = []
    for level in levels[:-1]:
        if index ^ 1 < len(level):
            out.append(level[index ^ 1])
        index //= 2
    return out


def depth(count):
    d = 0
    while count > 1:
        count, d = (count + 1) // 2, d + 1
    return d


def verify(hash_, index, count, proof_, root):
    if not 0 <= index < count:
        return False
    used = 0
    while count > 1:
        if index ^ 1 < count:
            if used == len(proof_):
                return False
            hash_ = parent(hash_, proof_[used]) if index % 2 == 0 else parent(proof_[used], hash_)
            used += 1
        index, count = index // 2, (count + 1) // 2
    return used == len(proof_) and hash_ == root


# --- chunk envelopes ---------------------------------------------------------------------------------

def associated_data(chat, file, index, epoch):
    return LABEL + chat + file + u32(index) + u32(epoch)


def seal(chunk, index, proof_, key, epoch, chat, file):
    data = associated_data(chat, file, index, epoch)
    nonce = hashlib.blake2b(data, digest_size=24, key=key).digest()
    sealed = crypto_aead_xchacha20poly1305_ietf_encrypt(chunk, data, nonce, key)
    return bytes([len(proof_)]) + b"".join(proof_) + u32(epoch) + nonce + sealed


def open_envelope(envelope, index, manifest, keys, chat, file):
    """The chunk, or Refused("malformed" | "unopenable" | "hashMismatch")."""
    count = chunk_count(manifest["size"])
    if not 0 <= index < count or not envelope or envelope[0] > depth(count):
        raise Refused("malformed")
    start = 1 + 32 * envelope[0]
    if len(envelope) != start + 4 + 24 + 16 + chunk_length(manifest["size"], index):
        raise Refused("malformed")
    proof_ = [envelope[1 + 32 * i:33 + 32 * i] for i in range(envelope[0])]
    epoch = int.from_bytes(envelope[start:start + 4], "big")
    nonce, body = envelope[start + 4:start + 28], envelope[start + 28:]
    for key in keys.get(epoch, []):
        try:
            chunk = crypto_aead_xchacha20poly1305_ietf_decrypt(body, associated_data(chat, file, index, epoch), nonce, key)
        except CryptoError:
            continue
        if not verify(leaf(chunk), index, count, proof_, bytes.fromhex(manifest["root"])):
            raise Refused("hashMismatch")
        return chunk
    raise Refused("unopenable")


def piece_count(length):
    return max(1, -(-length // PIECE))


# --- frames ------------------------------------------------------------------------------------------

def decode_frames(data):
    frames, r = [], Reader(data)
    while r.left():
        kind, length = r.u(1), r.u(4)
        body = Reader(r.take(length))
        if kind == 17:
            file = body.take(32)
            if body.left() % 12 or not 1 <= body.left() // 12 <= 64:
                raise Refused("malformed")
            wants = [(body.u(4), body.u(8)) for _ in range(body.left() // 12)]
            if any(mask == 0 for _, mask in wants):
                raise Refused("malformed")
            frames.append(("fileWant", file, wants))
        elif kind == 18:
            file, chunk, piece, pieces = body.take(32), body.u(4), body.u(1), body.u(1)
            if not 1 <= pieces <= MAX_PIECES or piece >= pieces or not 1 <= body.left() <= PIECE:
                raise Refused("malformed")
            frames.append(("filePiece", file, chunk, piece, pieces, body.take(body.left())))
        elif kind == 19:
            if body.left() != 32:
                raise Refused("malformed")
            frames.append(("fileLack", body.take(32)))
        else:
            raise Refused("not a file frame")
        if body.left():
            raise Refused("malformed")
    return frames


def encode_frame(frame):
    if frame[0] == "fileWant":
        kind, body = 17, frame[1] + b"".join(u32(c) + m.to_bytes(8, "big") for c, m in frame[2])
    elif frame[0] == "filePiece":
        kind, body = 18, frame[1] + u32(frame[2]) + bytes([frame[3], frame[4]]) + frame[5]
    else:
        kind, body = 19, frame[1]
    return bytes([kind]) + u32(len(body)) + body


# --- the checks --------------------------------------------------------------------------------------

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def refused_as(rule, call):
    try:
        call()
    except Refused as refusal:
        return refusal.rule == rule
    return False


def content_bytes(c):
    return bytes((c["multiplier"] * i + c["offset"]) % c["modulus"] for i in range(c["length"]))


def split(data):
    return [data[i * CHUNK:(i + 1) * CHUNK] for i in range(chunk_count(len(data)))]


def main(path):
    v = json.load(open(path))
    check(v["chunkBytes"] == CHUNK and v["pieceBytes"] == PIECE, "constants")
    key, epoch, chat = bytes.fromhex(v["chatKey"]), v["epoch"], bytes.fromhex(v["chat"])
    keys = {epoch: [key]}
    manifests, files = {}, {}
    for m in v["manifests"]:
        label = m["label"]
        encoded = bytes.fromhex(m["encoded"])
        try:
            decoded = decode_manifest(encoded)
        except Refused as refusal:
            check(False, f"manifest {label}: refused ({refusal.rule})")
            continue
        for field in ("name", "size", "type", "root", "caption", "picture"):
            check(decoded[field] == m.get(field), f"manifest {label}: {field}")
        check(encode_manifest(decoded) == encoded, f"manifest {label}: encoding")
        check(chunk_count(decoded["size"]) == m["chunkCount"], f"manifest {label}: chunk count")
        check(chunk_length(decoded["size"], m["chunkCount"] - 1) == m["lastChunkBytes"], f"manifest {label}: last chunk")
        check(bytes.fromhex(m["file"]) == h256(label.encode()), f"manifest {label}: file id")
        if m.get("content"):
            data = content_bytes(m["content"])
            check(h256(data).hex() == m["content"]["hash"] and len(data) == decoded["size"], f"manifest {label}: content")
            check(levels_of([leaf(c) for c in split(data)])[-1][0].hex() == decoded["root"], f"manifest {label}: root")
            files[label] = data
        manifests[label] = (decoded, bytes.fromhex(m["file"]))
    for r in v["refused"]:
        check(refused_as(r["rule"], lambda: decode_manifest(bytes.fromhex(r["encoded"]))), f"refused manifest: {r['label']}")
    for n in v["names"]:
        raw, clean = bytes.fromhex(n["raw"]).decode(), bytes.fromhex(n["sanitized"]).decode()
        check(sanitized(raw) == clean, f"name: {n['label']}")
        check((sanitized(raw) == raw) == n["accepted"], f"name accepted: {n['label']}")
        check(sanitized(clean) == clean and 1 <= len(clean.encode()) <= 255, f"name idempotent: {n['label']}")
    proofs = 0
    for t in v["trees"]:
        chunks = [bytes.fromhex(c) for c in t["chunks"]]
        levels = levels_of([leaf(c) for c in chunks])
        root = levels[-1][0]
        check([x.hex() for x in levels[0]] == t["leaves"] and root.hex() == t["root"], f"tree of {len(chunks)}")
        for index, p in enumerate(t["proofs"]):
            ours = proof(levels, index)
            check([x.hex() for x in ours] == p, f"tree of {len(chunks)}: proof {index}")
            check(verify(levels[0][index], index, len(chunks), ours, root) and len(ours) <= depth(len(chunks)),
                  f"tree of {len(chunks)}: proof {index} verifies")
            proofs += 1
    roots = {len(t["chunks"]): bytes.fromhex(t["root"]) for t in v["trees"]}
    for b in v["badProofs"]:
        good = verify(bytes.fromhex(b["leaf"]), b["index"], b["count"], [bytes.fromhex(x) for x in b["proof"]], roots[b["count"]])
        check(not good, f"bad proof verified: {b['label']}")
    for e in v["envelopes"]:
        manifest, file = manifests[e["manifest"]]
        data, index = files[e["manifest"]], e["index"]
        levels = levels_of([leaf(c) for c in split(data)])
        chunk = split(data)[index]
        envelope = seal(chunk, index, proof(levels, index), key, e["epoch"], chat, file)
        what = f"envelope {e['manifest']}#{index}"
        check([x.hex() for x in proof(levels, index)] == e["proof"], f"{what}: proof")
        check(associated_data(chat, file, index, e["epoch"]).hex() == e["associatedData"], f"{what}: associated data")
        check(envelope[1 + 32 * len(e["proof"]) + 4:][:24].hex() == e["nonce"], f"{what}: nonce")
        check(len(envelope) == e["length"] and h256(envelope).hex() == e["hash"], f"{what}: bytes")
        check(envelope[:128].hex() == e["head"] and (e.get("envelope") is None or envelope.hex() == e["envelope"]), f"{what}: bytes")
        check(piece_count(len(envelope)) == e["pieces"] <= MAX_PIECES, f"{what}: pieces")
        check(len(envelope) - (e["pieces"] - 1) * PIECE == e["lastPieceBytes"], f"{what}: last piece")
        check(open_envelope(envelope, index, manifest, keys, chat, file) == chunk, f"{what}: opens")
    for e in v["refusedEnvelopes"]:
        manifest, file = manifests[e["manifest"]]
        envelope = bytes.fromhex(e["envelope"])
        check(refused_as(e["refusal"], lambda: open_envelope(envelope, e["index"], manifest, keys, chat, file)),
              f"refused envelope: {e['label']}")
    plain, plain_file = files["plain"], manifests["plain"][1]
    levels = levels_of([leaf(c) for c in split(plain)])
    sealed = [seal(c, i, proof(levels, i), key, epoch, chat, plain_file) for i, c in enumerate(split(plain))]
    expected = [
        [("fileWant", plain_file, [(1, (1 << 64) - 1), (0, 1 << 3 | 1 << 57)])],
        [("filePiece", plain_file, 0, 0, piece_count(len(sealed[0])), sealed[0][:PIECE])],
        [("filePiece", plain_file, 0, 57, piece_count(len(sealed[0])), sealed[0][57 * PIECE:])],
        [("filePiece", plain_file, 1, 0, 1, sealed[1])],
        [("fileLack", plain_file)],
    ]
    check(len(v["frames"]) == len(expected), "frame count")
    for f, frames in zip(v["frames"], expected):
        encoded = bytes.fromhex(f["encoded"])
        check(b"".join(encode_frame(x) for x in frames) == encoded, f"frame encoding: {f['label']}")
        check(decode_frames(encoded) == frames, f"frame decoding: {f['label']}")
    for f in v["refusedFrames"]:
        check(refused_as("malformed", lambda: decode_frames(bytes.fromhex(f["encoded"]))), f"refused frame: {f['label']}")
    summary = (f"{len(v['manifests'])} manifests, {len(v['refused'])} refused, {len(v['names'])} names, "
               f"{len(v['trees'])} trees ({proofs} proofs), {len(v['badProofs'])} bad proofs, "
               f"{len(v['envelopes'])} envelopes, {len(v['refusedEnvelopes'])} refused, "
               f"{len(v['frames'])} frames, {len(v['refusedFrames'])} refused")
    if failures:
        print(f"files.py: {len(failures)} mismatches in {summary}: " + "; ".join(failures[:10]))
        sys.exit(1)
    print(f"files.py: {summary}: all match §13e")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "file-vectors.json"))
