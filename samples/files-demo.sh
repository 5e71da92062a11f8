#!/usr/bin/env bash
# Alice sends a picture (its GPS metadata stripped first) and a 3 MiB file to Bob and Carol. The
# picture is fetched by both at once (pictures up to 10 MiB are); the file when each asks, Carol's
# from Alice and Bob together. Every copy is checked against the original.
samples="$(cd "$(dirname "$0")" && pwd)"
source "$samples/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "Holiday" --member bob --member carol)
head -c 3145728 /dev/urandom > "$DEMO_DIR/notes.bin"
picture=$(as alice send "$chat" --file "$samples/beach.jpg" --caption "the beach" --json | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' | head -1)
echo "alice sends beach.jpg (with GPS in its EXIF; stripped before sending) as ${picture:0:8}"
data=$(as alice send "$chat" --file "$DEMO_DIR/notes.bin" --json | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' | head -1)
echo "alice sends notes.bin (3 MiB) as ${data:0:8}"

for n in bob carol; do wait_until "$n" "beach.jpg.*\[held\]" files "$chat"; done
echo "bob's and carol's nodes fetched the picture by themselves"
mkdir -p "$DEMO_DIR/bob-saved" "$DEMO_DIR/carol-saved"
as bob files get "$chat" "$data" --to "$DEMO_DIR/bob-saved" && echo "bob fetched notes.bin from alice"
as carol files get "$chat" "$data" --to "$DEMO_DIR/carol-saved" && echo "carol fetched notes.bin from alice and bob"
as carol files get "$chat" "$picture" --to "$DEMO_DIR/carol-saved" >/dev/null

for copy in "$DEMO_DIR/bob-saved/notes.bin" "$DEMO_DIR/carol-saved/notes.bin"; do
  cmp -s "$DEMO_DIR/notes.bin" "$copy" || { echo "$copy differs from what alice sent" >&2; exit 1; }
done
if grep -q "DemoCam" "$DEMO_DIR/carol-saved/beach.jpg"; then echo "the picture kept its EXIF metadata" >&2; exit 1; fi
echo
for n in alice bob carol; do echo "== $n's files"; as "$n" files "$chat"; done
echo
echo "all copies are byte for byte what alice sent; carol's beach.jpg carries no EXIF (no camera, no GPS)"
