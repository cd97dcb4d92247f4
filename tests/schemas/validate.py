#!/usr/bin/python3
"""validate.py SCHEMA DOCUMENT: checks a JSON document against a JSON schema
(draft-07, as the SARIF 2.1.0 schema declares) with Debian's
python3-jsonschema. Exit 0 valid, 1 invalid (each error printed with its
path), 3 when the jsonschema module is missing (the caller skips), 2 for
anything else (a file that cannot be read or is not JSON)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate.py: the jsonschema module is missing; install python3-jsonschema "
          "and run with /usr/bin/python3", file=sys.stderr)
    sys.exit(3)


def main():
    if len(sys.argv) != 3:
        print("usage: validate.py SCHEMA DOCUMENT", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(sys.argv[2], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate.py: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(the document)"
        print(f"{sys.argv[2]}: {where}: {e.message}")
    if errors:
        return 1
    print(f"{sys.argv[2]}: valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
