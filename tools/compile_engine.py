"""Compile the rules engine's hot modules with mypyc, or leave the engine pure Python.

`make install` runs this (docs/development.md, "The compiled engine"). mypyc turns the
strictly typed modules into C extensions next to their sources (`*.so`, git-ignored), which
Python imports in their place: the same code, about 1.7× faster. The sources stay the truth:
`make` rebuilds whenever an engine or contracts source changes, `FELT_ENGINE_PURE=1` (or no C
compiler) leaves pure Python, and the manifest written here (`.compiled.json`: the source
hashes built from) lets the test suite refuse extensions older than their sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

LIBS = Path(__file__).resolve().parent.parent / "libs"
ENGINE = LIBS / "felt_engine"
MANIFEST = ENGINE / ".compiled.json"
#: the modules a hand runs through. The readers, writers and command lines stay interpreted, and
#: so do three whose classes callers build or subclass, since a compiled class checks its declared
#: types with a bare TypeError where the engine answers with its own error: `errors` (the PHH
#: reader subclasses EngineError), `profiles` (TableStakes from loose values; read once a hand,
#: ~2%) and `cards` (a Deck from a list; interpreted, the engine's own decks skip the checks,
#: which makes it faster than compiled)
MODULES = "actions betting dealing evaluator forced hand operations pots preactions state views".split()


def sources() -> dict[str, str]:
    """The hash of every source the compiled modules were type-checked against."""
    files = sorted([*ENGINE.glob("*.py"), *(LIBS / "felt_contracts").glob("*.py")])
    return {str(f.relative_to(LIBS)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def extensions() -> list[Path]:
    return sorted(ENGINE.glob("*.so")) + sorted(ENGINE.glob("*.pyd"))


def stale() -> str | None:
    """Why the extensions present should not be imported (None: none present, or fresh)."""
    if not extensions():
        return None
    if os.environ.get("FELT_ENGINE_PURE"):
        return "FELT_ENGINE_PURE is set, but the compiled engine is present"
    try:
        built = json.loads(MANIFEST.read_text())["sources"]
    except (OSError, ValueError, KeyError):
        return "compiled engine modules without a manifest"
    now = sources()
    changed = sorted(k for k in set(built) | set(now) if built.get(k) != now.get(k))
    return f"the compiled engine is older than {', '.join(changed[:3])}" if changed else None


def clean() -> None:
    for f in extensions():
        f.unlink()


def missing_toolchain() -> str | None:
    """What a build would lack (checked first: a failed C build prints pages, not a line)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    return None


def compile_modules() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    os.chdir(LIBS)  # mypy resolves felt_engine and felt_contracts from here
    with tempfile.TemporaryDirectory(prefix="felt-mypyc-") as tmp:
        setup(
            name="felt-engine-compiled",
            # the shared runtime module lives inside the package, where the editable install finds it
            ext_modules=mypycify(
                ["--config-file=", *(f"felt_engine/{m}.py" for m in MODULES)],
                group_name="felt_engine.native",
                target_dir=tmp,  # the generated C, out of the tree
            ),
            script_args=["-q", "build_ext", "--inplace", "--build-temp", tmp, "--build-lib", tmp],
        )


def built_as(pure: bool) -> bool:
    """Whether the last build is of these very sources, modules and mode, and did not fail (a
    touched file, a branch switch back and forth: nothing to compile)."""
    try:
        record = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return False
    done = record.get("compiled") or pure or missing_toolchain() is not None
    return (
        bool(done)
        and record.get("pure") == pure
        and record.get("compiled") == bool(extensions())
        and record.get("modules") == MODULES
        and record.get("sources") == sources()
    )


def main() -> int:
    pure = bool(os.environ.get("FELT_ENGINE_PURE"))
    if built_as(pure):
        MANIFEST.touch()  # newer than the sources again, for make
        return 0
    clean()
    compiled, why = False, "FELT_ENGINE_PURE is set" if pure else missing_toolchain()
    if why is None:
        try:
            compile_modules()
            compiled, why = True, "compiled by mypyc"
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - no compiler or headers: pure Python still works
            clean()
            why = f"not compiled ({type(exc).__name__}: {exc})"[:300]
    record = {"pure": pure, "compiled": compiled, "why": why, "modules": MODULES, "sources": sources()}
    MANIFEST.write_text(json.dumps(record, indent=1))
    print(f"felt_engine: {why}" + ("" if compiled else "; running as pure Python"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
