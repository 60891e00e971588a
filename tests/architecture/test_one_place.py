"""One rule, one place: knowledge that several services need is defined once (in libs/) and
used from there. Each guard reads the source tree and fails if a second definition appears;
each is also fed a bad snippet, so it is known to be able to fail."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TABLE_ID_REGEX = "[a-z0-9][a-z0-9_-]{0,63}"


def sources() -> dict[str, str]:
    """Every Python file of libs/ and services/ by its path from the repo root."""
    return {
        str(p.relative_to(REPO)): p.read_text()
        for root in ("libs", "services")
        for p in sorted((REPO / root).rglob("*.py"))
    }


def calls_to(name: str) -> Callable[[str], bool]:
    """Source text -> whether it calls something named `name` (a function or a method)."""

    def check(text: str) -> bool:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call):
                fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if fn == name:
                    return True
        return False

    return check


def defines_function(name: str) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.lstrip("_") == name
            for n in ast.walk(ast.parse(text))
        )

    return check


def mentions(literal: str) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return any(
            isinstance(n, ast.Constant) and isinstance(n.value, str) and literal in n.value
            for n in ast.walk(ast.parse(text))
        )

    return check


def lists_all(names: set[str], types: bool = True) -> Callable[[str], bool]:
    """Source text -> whether one literal collection (a set, tuple, list or Literal[...]) names all of
    `names`; `types=False`: not a Literal[...] (a type naming every kind is not a rule about some)."""

    def check(text: str) -> bool:
        tree = ast.parse(text)
        typed = {
            id(n.slice)
            for n in ast.walk(tree)
            if isinstance(n, ast.Subscript) and getattr(n.value, "id", getattr(n.value, "attr", "")) == "Literal"
        }
        for node in ast.walk(tree):
            if not types and id(node) in typed:
                continue
            if isinstance(node, ast.Set | ast.Tuple | ast.List):
                found = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if names <= found:
                    return True
        return False

    return check


def compares_with(literal: str) -> Callable[[str], bool]:
    """Source text -> whether something is compared with the string `literal` (`==`, `in`, ...)."""

    def check(text: str) -> bool:
        return any(
            isinstance(n, ast.Compare)
            and any(isinstance(x, ast.Constant) and x.value == literal for x in [n.left, *n.comparators])
            for n in ast.walk(ast.parse(text))
        )

    return check


def lists_exactly(names: set[str]) -> Callable[[str], bool]:
    """Source text -> whether a literal collection names exactly `names`."""

    def check(text: str) -> bool:
        return any(
            isinstance(n, ast.Set | ast.Tuple | ast.List)
            and {e.value for e in n.elts if isinstance(e, ast.Constant)} == names
            and len(n.elts) == len(names)
            for n in ast.walk(ast.parse(text))
        )

    return check


def names(identifier: str) -> Callable[[str], bool]:
    """Source text -> whether it uses or imports `identifier` (a name, an attribute or an import)."""

    def check(text: str) -> bool:
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Name) and n.id == identifier:
                return True
            if isinstance(n, ast.Attribute) and n.attr == identifier:
                return True
            if isinstance(n, ast.alias) and n.name == identifier:
                return True
        return False

    return check


def attribute(owner: str, name: str) -> Callable[[str], bool]:
    """Source text -> whether it reads `owner.name` (an enum member, say)."""

    def check(text: str) -> bool:
        return any(
            isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.value, ast.Name) and n.value.id == owner
            for n in ast.walk(ast.parse(text))
        )

    return check


def either(*checks: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda text: any(check(text) for check in checks)


#: what a client's REST call or WebSocket frame becomes on the bus (felt_gateway.commands)
CLIENT_REQUESTS = (
    "ChatPost",
    "Act",
    "Join",
    "Start",
    "Leave",
    "SetPreAction",
    "SitOut",
    "SitIn",
    "Show",
    "SetAutoRebuy",
)

#: rule -> (the file(s) or folder(s) allowed, the check that finds a definition, a snippet that breaks it)
RULES: dict[str, tuple[str | tuple[str, ...], Callable[[str], bool], str]] = {
    "a request's fingerprint for idempotency": (
        "libs/felt_runtime/idempotency.py",
        defines_function("fingerprint"),
        "def _fingerprint(req):\n    return hash(req)\n",
    ),
    "JetStream stream creation": (
        "libs/felt_runtime/streams.py",
        calls_to("add_stream"),
        "async def up(js, c):\n    await js.add_stream(c)\n",
    ),
    "the pre-action names": (
        "libs/felt_contracts/names.py",
        lists_all({"check_fold", "fold", "call_any", "raise_any"}),
        'PreAction = Literal["check_fold", "fold", "call_any", "raise_any"]\n',
    ),
    "the action names": (
        "libs/felt_contracts/names.py",
        lists_all({"fold", "check", "call", "bet", "raiseTo", "allIn", "draw", "hit"}),
        'Kind = Literal["fold", "check", "call", "bet", "raiseTo", "allIn", "draw", "hit"]\n',
    ),
    "an action's shape (amount only for bet/raiseTo, cards only for draw)": (
        "libs/felt_engine/",
        lists_exactly({"bet", "raiseTo"}),
        'def check(kind, amount):\n    if kind in ("bet", "raiseTo") and amount is None:\n        raise ValueError("x")\n',
    ),
    # hiding a card means telling a hole-card deal from the rest: only the engine does
    # (felt_engine.views.seen_by; the table's events and histories call it)
    "who may see which cards": (
        "libs/felt_engine/",
        compares_with("deal_hole"),
        'def visible(op, own):\n    if op["kind"] == "deal_hole" and not own:\n        op["cards"] = []\n    return op\n',
    ),
    "which events have a private copy, and for whom (the table decides, from the engine's rule)": (
        ("libs/felt_engine/", "services/felt_table/ports/events.py"),
        either(names("PRIVATE_KINDS"), lists_all({"deal_hole", "draw"}, types=False)),
        'COMPANION_KINDS = frozenset({"deal_hole", "draw", "turn"})\n',
    ),
    "health endpoints (the bus responder, /healthz, /readyz)": (
        "libs/felt_runtime/service.py",
        calls_to("HealthStatus"),
        'async def readyz():\n    return HealthStatus(service="gateway", status="ok", version="0", checks={})\n',
    ),
    # the tournament director seats its entrants itself (they register; they never send a join)
    "a client request's bus request (REST and WebSocket: table commands, their message ids, chat posts)": (
        ("services/felt_gateway/commands.py", "services/felt_tournament/"),
        either(*(calls_to(c) for c in CLIENT_REQUESTS)),
        "def post(who, frame):\n    return ChatPost(table_id=frame.table_id, participant_id=who.participant_id, text=frame.text)\n",
    ),
    # the tournament director follows its own tables' events (seats, stacks, busts) as no viewer
    "the feed-gap reader (a viewer's events: the gateway's feed, else the table)": (
        ("services/felt_gateway/hub.py", "services/felt_tournament/"),
        calls_to("GetEvents"),
        "async def fetch(bus, t, me, seq):\n    return await bus.table(t, GetEvents(after_seq=seq, viewer=me))\n",
    ),
    "seats as chat membership (chat follows the table's seat events; nobody tells it)": (
        ("libs/felt_contracts/", "services/felt_chat/"),
        either(names("SEAT_TAKEN"), names("SEAT_FREED"), names("SEATS_EMPTIED"), attribute("ChatRole", "SEATED")),
        "async def join(bus, t, p):\n    await bus.call(CHAT_JOIN, ChatJoin(table_id=t, participant_id=p, role=ChatRole.SEATED))\n",
    ),
    "the table-id pattern": (
        "libs/felt_contracts/table.py",
        mentions(TABLE_ID_REGEX),
        f"import re\nTABLE = re.compile(r'^{TABLE_ID_REGEX}$')\n",
    ),
}


def test_each_rule_is_defined_in_one_place() -> None:
    offenders = [
        f"{rule}: {path} (only {home})"
        for rule, (home, found, _) in RULES.items()
        for path, text in sources().items()
        if not path.startswith(home) and found(text)
    ]
    assert offenders == []


def test_each_rule_has_its_definition_where_it_is_said_to_be() -> None:
    texts = sources()
    assert [
        rule
        for rule, (home, found, _) in RULES.items()
        if not any(found(text) for path, text in texts.items() if path.startswith(home))
    ] == []


def test_the_guards_catch_a_second_definition() -> None:
    assert [rule for rule, (_, found, bad) in RULES.items() if not found(bad)] == []


def profile_name_checks(text: str, names: frozenset[str]) -> list[int]:
    """Lines that compare something with a rules profile's name (or a collection of names):
    what a profile allows is its data in felt_engine.profiles, never a check of its name."""

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, ast.Set | ast.Tuple | ast.List):
            return any(named(e) for e in node.elts)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("frozenset", "set", "tuple"):
            return any(named(a) for a in node.args)
        return False

    tree = ast.parse(text)
    consts = {
        t.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and named(n.value)
        for t in n.targets
        if isinstance(t, ast.Name) and t.id.isupper()
    }
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Compare)
        and any(named(x) or (isinstance(x, ast.Name) and x.id in consts) for x in [n.left, *n.comparators])
    ]


def test_no_service_checks_a_profile_by_name() -> None:
    from felt_engine.profiles import PROFILES

    names = frozenset(PROFILES)
    # the profiles themselves, and the agents' rules pages (files named by profile: the seed's own
    # nlhe-1 page is complete, the others end with the common part)
    allowed = {"libs/felt_engine/profiles.py", "services/felt_gateway/rules/__init__.py"}
    offenders = [
        f"{path}:{line}"
        for path, text in sources().items()
        if path not in allowed
        for line in profile_name_checks(text, names)
    ]
    assert offenders == []
    bad = 'FIXED = frozenset({"nlhe-1", "ante-nl-1"})\ndef f(cfg):\n    return cfg.rules_version in FIXED\n'
    assert profile_name_checks(bad, names) == [3]
    assert profile_name_checks('def f(v):\n    return v == "draw5-1"\n', names) == [2]
