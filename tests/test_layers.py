"""The import rules between the layers, read from the source (no module is imported).

The builder and the server are siblings: neither imports the other. What both read sits below
them at the package root: the snapshot contract (``bangscore/contract``), the website's
rendering (``bangscore/site``), object storage and the manifest. The server never reaches the
ingest stack or the command line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ("bangscore.errors", "bangscore.storage", "bangscore.s3", "bangscore.manifest")
# The command line, its settings and the operators' tools it runs sit above every layer; the
# server's app factory alone takes the typed settings (create_app(settings, ...)). The watch
# alerts' sender and its SMTP transport are operators' tools too: the server is handed a way to
# send its confirmation emails by the command line, never imports the transport.
COMPOSITION_ROOT = (
    *("bangscore.cli", "bangscore.settings", "bangscore.usage", "bench.calibrate"),
    *("bangscore.alerts", "bangscore.mail", "bangscore.watch_cli"),
)
HTTP_CLIENTS = ("httpx", "tenacity")


def imports_of(path: Path) -> set[str]:
    """Given a Python file, return every module it imports (top level, functions, TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def offending(
    paths: list[Path], forbidden: tuple[str, ...], root: Path = ROOT
) -> dict[str, list[str]]:
    bad: dict[str, list[str]] = {}
    for path in paths:
        hits = sorted(
            name
            for name in imports_of(path)
            if any(name == f or name.startswith(f + ".") for f in forbidden)
        )
        if hits:
            bad[str(path.relative_to(root))] = hits
    return bad


LAYERS = ("bangscore.ingest", "bangscore.scoring", "bangscore.build", "bangscore.shim")
CONTRACT_PACKAGE = "bangscore.contract"
SITE = "bangscore.site"
# The ingest HTTP stack: the polite client, one adapter per live source, and the refresh that
# runs them. Everything else in ingest reads dumps and resolves observations offline.
ADAPTERS = ("achievements", "hltb", "itad", "pcgw", "reviews", "steamspy", "storefront")
HTTP_STACK = (
    "bangscore.ingest.http",
    "bangscore.ingest.refresh",
    *(f"bangscore.ingest.{name}" for name in ADAPTERS),
    *HTTP_CLIENTS,
)


@pytest.mark.parametrize(
    ("paths", "forbidden"),
    [
        pytest.param(
            modules("shim"),
            (
                "bangscore.ingest",
                "bangscore.build",
                *(m for m in COMPOSITION_ROOT if m != "bangscore.settings"),
                *HTTP_CLIENTS,
                "smtplib",
            ),
            id="shim-is-only-the-server",
        ),
        pytest.param(
            modules("bangscore/stores"),
            ("bangscore.ingest", "bangscore.build", "bangscore.shim", *COMPOSITION_ROOT),
            id="stores-below-server-and-tools",
        ),
        pytest.param(
            [ROOT / "bangscore" / f"{name}.py" for name in ("alerts", "usage", "watch_cli")],
            ("bangscore.shim",),
            id="operators-tools-never-import-the-server",
        ),
        pytest.param(
            modules("build"),
            ("bangscore.ingest", "bangscore.shim", *COMPOSITION_ROOT, *HTTP_CLIENTS),
            id="build-writes-from-scored-games",
        ),
        pytest.param(
            [ROOT / "bangscore" / f"{name.rsplit('.', 1)[1]}.py" for name in SHARED],
            (*LAYERS, CONTRACT_PACKAGE, SITE, *COMPOSITION_ROOT),
            id="shared-format-below-every-layer",
        ),
        pytest.param(
            modules("bangscore/contract"),
            ("bangscore.ingest", "bangscore.build", "bangscore.shim", SITE, *COMPOSITION_ROOT),
            id="contract-below-builder-and-server",
        ),
        pytest.param(
            modules("bangscore/site"),
            ("bangscore.ingest", "bangscore.build", "bangscore.shim", *COMPOSITION_ROOT),
            id="site-renders-for-builder-and-server",
        ),
        pytest.param(
            modules("scoring"),
            (
                "bangscore.ingest",
                "bangscore.build",
                "bangscore.shim",
                CONTRACT_PACKAGE,
                SITE,
                *COMPOSITION_ROOT,
            ),
            id="scoring-is-pure",
        ),
        pytest.param(
            modules("ingest"),
            ("bangscore.build", "bangscore.shim", CONTRACT_PACKAGE, SITE, *COMPOSITION_ROOT),
            id="ingest-feeds-scoring-only",
        ),
        pytest.param(
            [p for p in modules("ingest") if p.stem not in {*ADAPTERS, "http", "refresh"}]
            + [ROOT / "bench" / "calibrate.py"],
            HTTP_STACK,
            id="only-adapters-reach-the-http-stack",
        ),
    ],
)
def test_layer_imports(paths: list[Path], forbidden: tuple[str, ...]) -> None:
    assert paths
    assert offending(paths, forbidden) == {}


def test_the_rule_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from bangscore.ingest.catalog import read_catalog\n")
    assert offending([source], ("bangscore.ingest",), tmp_path) == {
        "m.py": ["bangscore.ingest.catalog", "bangscore.ingest.catalog.read_catalog"]
    }


def test_every_shim_module_serves_the_app() -> None:
    """shim/ holds only the server: each of its modules is imported, directly or through
    another, by the Starlette app or the edge process that runs it."""
    by_name = {
        "bangscore.shim." + ".".join(p.relative_to(ROOT / "shim").with_suffix("").parts): p
        for p in modules("shim")
        if p.stem != "__init__"
    }
    reached: set[str] = set()
    todo = ["bangscore.shim.app", "bangscore.shim.edge"]
    while todo:
        name = todo.pop()
        if name in reached or name not in by_name:
            continue
        reached.add(name)
        for imported in imports_of(by_name[name]):
            todo.extend(m for m in by_name if imported == m or imported.startswith(m + "."))
    assert sorted(set(by_name) - reached) == []
