#!/usr/bin/python3
"""The kernel spec's published JSON Schema (kernels/spec/kernel-spec.schema.json) against the
examples, which gpubench reads (they must validate), and against specs gpubench refuses for their
shape (the schema must refuse them too).

Run as: test_schema.py SOURCE_DIR
"""
import copy
import glob
import json
import os
import sys
import unittest

import jsonschema

SOURCE = os.path.abspath(sys.argv[1])
SCHEMA = os.path.join(SOURCE, "kernels", "spec", "kernel-spec.schema.json")


class Schema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SCHEMA) as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.validator = jsonschema.Draft202012Validator(cls.schema)
        cls.examples = sorted(glob.glob(os.path.join(SOURCE, "examples", "*", "*.json")))

    def test_every_example_validates_and_names_the_schema(self):
        self.assertGreaterEqual(len(self.examples), 3)
        for path in self.examples:
            with open(path) as f:
                spec = json.load(f)
            with self.subTest(spec=path):
                errors = [e.message for e in self.validator.iter_errors(spec)]
                self.assertEqual(errors, [])
                here = os.path.normpath(os.path.join(os.path.dirname(path), spec["$schema"]))
                self.assertEqual(here, SCHEMA)

    def test_what_gpubench_refuses_for_its_shape_the_schema_refuses(self):
        with open(self.examples[0]) as f:
            good = json.load(f)
        changes = {
            "no verification": lambda s: s.pop("verify"),
            "an unknown field": lambda s: s.update(extra=1),
            "two sources kinds": lambda s: s["sources"].update(portable="k.h"),
            "a size below 1": lambda s: s["sizes"].update(n=0),
            "an unknown element type": lambda s: s["buffers"]["in"].update(type="half"),
            "a step without local": lambda s: s["steps"][0].pop("local"),
            "four dimensions": lambda s: s["steps"][0].update(**{"global": ["1", "1", "1", "1"]}),
            "an unknown scalar type": lambda s: s["steps"][0]["args"].append({"short": 1}),
            "reference and expected": lambda s: s["verify"].update(expected={"out": "x.bin"}),
            "a negative tolerance": lambda s: s["verify"]["tolerance"].update(rel=-1),
            "another version": lambda s: s.update(version=2),
        }
        for what, change in changes.items():
            spec = copy.deepcopy(good)
            change(spec)
            with self.subTest(what=what):
                self.assertFalse(self.validator.is_valid(spec), what)


if __name__ == "__main__":
    sys.argv = sys.argv[:1]
    unittest.main()
