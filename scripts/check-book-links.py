#!/usr/bin/env python3
"""Checks the links of the built book (scripts/test.sh builds it first).

Usage: check-book-links.py BOOK_DIR

Walks every HTML page under BOOK_DIR and fails on a relative link (href or
src) to a file that does not exist, or to an anchor (#id) that the target
page lacks. Links with a scheme (http:, https:, mailto:, ...) are not
fetched. mdBook's own theme files (the search index, fonts, scripts) are
checked like any other file.
"""

import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    """The links and the ids of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []  # (attribute, value, line)
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append((name, value, self.getpos()[0]))


def parse(path, cache={}):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    pages = []
    for folder, _, files in os.walk(root):
        pages += [os.path.join(folder, f) for f in files if f.endswith(".html")]
    if not pages:
        sys.exit(f"{root}: no HTML pages (was the book built?)")
    broken = []
    checked = 0
    for page_path in sorted(pages):
        rel_page = os.path.relpath(page_path, root)
        if rel_page == "404.html":
            continue  # its links start from the site's root (its <base>)
        for attr, value, line in parse(page_path).links:
            url = urllib.parse.urlsplit(value)
            if url.scheme or url.netloc or value.startswith("//"):
                continue  # external: not fetched
            checked += 1
            target_path = page_path
            if url.path:
                target_path = os.path.normpath(os.path.join(os.path.dirname(page_path), urllib.parse.unquote(url.path)))
                if os.path.isdir(target_path):
                    target_path = os.path.join(target_path, "index.html")
                if not os.path.exists(target_path):
                    broken.append(f"{rel_page}:{line}: {attr}=\"{value}\": no file {os.path.relpath(target_path, root)}")
                    continue
            fragment = urllib.parse.unquote(url.fragment)
            if fragment and target_path.endswith(".html") and fragment not in parse(target_path).ids:
                broken.append(f"{rel_page}:{line}: {attr}=\"{value}\": {os.path.relpath(target_path, root)} has no id \"{fragment}\"")
    if broken:
        print(f"{len(broken)} broken links in the book ({root}):", file=sys.stderr)
        for b in broken:
            print("  " + b, file=sys.stderr)
        sys.exit(1)
    print(f"book links: {checked} relative links on {len(pages)} pages, none broken")


if __name__ == "__main__":
    main()
