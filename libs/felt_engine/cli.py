"""``felt-engine`` / ``python -m felt_engine``: command-line tools over the engine.

``replay FILE.phh|FILE.phhs`` prints one JSON object per hand (finishing stacks and
winnings in the file's player order). At the first problem it prints
``FILE:LINE: CODE: why`` (plus the action's index and text) on stderr and a JSON
``{"error": ...}`` line on stdout, and exits with status 1; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from felt_engine.phh_read import PhhInputError
from felt_engine.replay import replay_text

__all__ = ["main"]


def _replay(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        error = PhhInputError("unreadable", f"cannot read {path}: {e}")
    else:
        try:
            for hand in replay_text(text):
                print(json.dumps(hand.to_dict()), flush=True)
            return 0
        except PhhInputError as e:
            error = e
    where = f"{path}:{error.line}" if error.line is not None else path
    action = f" [action #{error.index}: {error.action!r}]" if error.index is not None else ""
    which = f" (hand {error.hand})" if error.hand is not None else ""
    print(f"{where}: {error.code}: {error.message}{action}{which}", file=sys.stderr)
    print(json.dumps({"error": error.to_dict()}))
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="felt-engine", description="Felt rules engine tools")
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay a PHH hand (.phh) or collection (.phhs)")
    replay.add_argument("file")
    args = parser.parse_args(argv)
    return _replay(args.file)
