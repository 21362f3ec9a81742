#!/usr/bin/python3
"""The guide (docs/) builds into a site and the README is its short front door (issue 58 item 5).

- Debian's mkdocs builds mkdocs.yml with --strict into the build tree: a link to a page or an
  image that is not there fails the build (skipped, exit 77, where mkdocs is not installed).
- Every link of a page to a heading (PAGE.md#anchor, #anchor) names a heading of the built page:
  mkdocs 1.4 checks pages, not their anchors.
- Every page under docs/ is in the site's navigation.
- README.md is at most 150 lines, and each of its links into docs/ names a page that exists.
Run as: test_docs.py SOURCE_DIR BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DOCS = os.path.join(SOURCE, "docs")
PAGES = sorted(os.path.relpath(os.path.join(d, f), DOCS) for d, _, files in os.walk(DOCS) for f in files
               if f.endswith(".md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def has_mkdocs():
    return subprocess.run(["/usr/bin/python3", "-c", "import mkdocs"], capture_output=True).returncode == 0


class Site(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.site = tempfile.mkdtemp(prefix="docs-site-", dir=BUILD)
        cls.build = subprocess.run(["/usr/bin/python3", "-m", "mkdocs", "build", "--strict", "--config-file",
                                    os.path.join(SOURCE, "mkdocs.yml"), "--site-dir", cls.site],
                                   capture_output=True, text=True, cwd=BUILD)

    def test_the_site_builds_strict(self):
        self.assertEqual(self.build.returncode, 0, self.build.stdout + self.build.stderr)

    def test_every_page_is_in_the_navigation(self):
        with open(os.path.join(SOURCE, "mkdocs.yml"), encoding="utf-8") as f:
            nav = f.read().split("\nnav:", 1)[1]
        for page in PAGES:
            self.assertIn(f": {page}\n", nav + "\n", f"docs/{page} is not in mkdocs.yml's nav")

    def test_every_anchor_names_a_heading(self):
        self.assertEqual(self.build.returncode, 0, self.build.stderr)
        for page in PAGES:
            with open(os.path.join(DOCS, page), encoding="utf-8") as f:
                text = re.sub(r"(?ms)^```.*?^```", "", f.read())
            for target in LINK.findall(text):
                if "://" in target or "#" not in target:
                    continue
                path, anchor = target.split("#", 1)
                linked = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                html = os.path.join(self.site, linked[:-3] + ".html")
                with self.subTest(page=page, link=target):
                    self.assertTrue(os.path.exists(html), f"docs/{page} links to {target}: no page {linked}")
                    with open(html, encoding="utf-8") as f:
                        self.assertTrue(f'id="{anchor}"' in f.read(), f"docs/{page} links to {target}: no such heading")


class Readme(unittest.TestCase):
    def test_the_readme_is_a_short_front_door_into_the_guide(self):
        with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertLessEqual(len(text.splitlines()), 150, "README.md is over 150 lines: move the detail into docs/")
        linked = [t for t in LINK.findall(text) if t.startswith("docs/")]
        self.assertGreaterEqual(len(linked), 10, "the README links to too few pages of the guide")
        for target in linked:
            self.assertTrue(os.path.exists(os.path.join(SOURCE, target.split("#")[0])), f"README.md links to {target}")


if __name__ == "__main__":
    if not has_mkdocs():
        print("mkdocs is not installed (scripts/setup installs Debian's mkdocs)")
        sys.exit(77)
    sys.argv = sys.argv[:1]
    unittest.main()
