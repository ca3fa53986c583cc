#!/usr/bin/env bash
# Downloads the platform's opening book (pacoplay.com's, built by its
# network Hedwig) from the platform's public repository, at a fixed commit,
# and imports it, which checks every entry:
#   scripts/fetch-platform-book.sh [OUT_DIR]     # default: books/
# writes OUT_DIR/platform-hedwig.json (as downloaded) and
# OUT_DIR/platform-hedwig.parquet (ours, for probe and compare).
# The file is the platform's, MIT-licensed (cli/tests/data/README.md).
set -euo pipefail
out="${1:-books}"
commit=47e7a0ad98eab19b073e354192440d8ea85ce890
name=2024-05-12-book-hedwig0.8-1000-1.0.json
url="https://raw.githubusercontent.com/kreibaum/pacosako/$commit/lib/examples/$name"
pacozero="${PACOZERO:-pacozero}"
mkdir -p "$out"
tmp="$(mktemp "$out/.platform-hedwig.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
echo "downloading $url" >&2
curl --fail --location --silent --show-error --max-filesize 50000000 --output "$tmp" "$url"
mv "$tmp" "$out/platform-hedwig.json"
trap - EXIT
# The import refuses a malformed book by name (file, FEN, field) and writes
# nothing; the downloaded file is then removed as well.
if ! "$pacozero" book import --format platform "$out/platform-hedwig.json" --out "$out/platform-hedwig.parquet"; then
  rm -f "$out/platform-hedwig.json"
  exit 1
fi
echo "wrote $out/platform-hedwig.json and $out/platform-hedwig.parquet" >&2
