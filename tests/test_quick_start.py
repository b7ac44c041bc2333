"""The README's quick start as a newcomer follows it (issue 48): ``make run PORT=N``, then only
what it prints and the website. Sign up through the page, read the mail ``make run`` keeps,
confirm, sign in, make a key, watch a game and receive its alert; every link printed or mailed names
port N. The catalogue is the small one of the tests, written where ``bangscore ingest`` would
leave it, so the build takes seconds instead of the real catalogue's minutes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from bangscore.ingest.catalog import write_catalog
from bangscore.mail.folder import message_links
from tests.support.factories import make_catalog, small_catalog
from tests.support.live import LOOPBACK, REPO, free_port, wait_for
from tests.support.signups import CSRF, PASSWORD

pytestmark = [pytest.mark.slow, pytest.mark.server]
URL = re.compile(r"https?://[^\s'\"<>]+")
KEY = re.compile(r"Demo API key \(shown once\): (\S+)")
NEW_KEY = re.compile(r'id="new-key-value" readonly value="([^"]+)"')
APPID = 10000  # a rated game of the small catalogue


class MakeRun:
    """``make run`` in its own process group, its output (stdout and stderr) gathered."""

    def __init__(self, state: Path, port: int) -> None:
        self.state, self.port = state, port
        env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
        env["BANGSCORE_STATE_DIR"] = str(state)
        self.process = subprocess.Popen(
            [
                *("make", "--no-print-directory", "run", f"PORT={port}"),
                *(f"EXPORT={state}/export", f"MAIL={state}/mail", "BUILD_WORKERS=1"),
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.clients: list[httpx.Client] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def stop(self) -> None:
        for client in self.clients:
            client.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._reader.join(timeout=5)
        assert self.process.stdout is not None
        self.process.stdout.close()


def kept_mail(folder: Path, subject: str) -> tuple[EmailMessage, list[str]]:
    """Given the mail folder and a subject's start, return the one kept message with it and
    its links; raise ValueError unless exactly one is kept."""
    found = []
    for path in sorted(folder.glob("*.eml")):
        raw = path.read_bytes()
        message = BytesParser(policy=policy.default).parsebytes(raw)
        if str(message["Subject"]).strip().startswith(subject):
            found.append((message, message_links(raw)))
    [one] = found
    return one


def test_make_run_alone_signs_a_player_up_and_alerts_their_watch(tmp_path: Path) -> None:
    state = tmp_path / "var"
    write_catalog(make_catalog(small_catalog()), state / "catalog.json.gz")
    port = free_port()
    site = f"http://127.0.0.1:{port}"
    run = MakeRun(state, port)
    try:
        wait_for(lambda: LOOPBACK.get(f"{site}/api/v1").status_code == 200, 180, "serving")
        wait_for(lambda: "is kept in" in run.output, 10, "saying where mail is kept")
        key = KEY.search(run.output)
        assert key is not None, run.output
        player = httpx.Client(base_url=site, timeout=30)
        run.clients.append(player)

        # Sign up through the page; the mail arrives in the folder make run named.
        form = {"csrf": CSRF.findall(player.get("/account").text)[0]}
        form |= {"email": "player@example.com", "password": PASSWORD}
        answer = player.post("/account/signup", data=form)
        assert answer.status_code == 200 and "Check your inbox" in answer.text
        mail = state / "mail"
        wait_for(lambda: any(mail.glob("*.eml")), 20, "the sign-up mail kept")
        signup, links = kept_mail(mail, "Finish creating your BangScore account")
        assert signup["To"] == "player@example.com"
        [confirm] = [link for link in links if "/account/signup/confirm?t=" in link]
        assert confirm.startswith(f"{site}/")
        # Printed just after the file is written: the terminal shows the same link.
        wait_for(lambda: confirm in run.output, 10, "the sign-up link printed")

        # Confirm (the link's button creates the account and signs in), sign out, sign in.
        page = player.get(confirm)
        assert page.status_code == 200
        created = player.post(confirm, data={"csrf": CSRF.findall(page.text)[0]})
        assert created.status_code == 303
        token = CSRF.findall(player.get("/account").text)[0]
        assert player.post("/account/signout", data={"csrf": token}).status_code == 303
        token = CSRF.findall(player.get("/account").text)[0]
        signin = {"csrf": token, "email": "player@example.com", "password": PASSWORD}
        assert player.post("/account/signin", data=signin).status_code == 303

        # The player's own key, shown once on the account page, answers the API.
        token = CSRF.findall(player.get("/account").text)[0]
        made = player.post("/account/keys", data={"csrf": token})
        own = NEW_KEY.search(made.text)
        assert made.status_code == 200 and own is not None, made.text
        bearer = {"Authorization": f"Bearer {own[1]}"}
        assert LOOPBACK.get(f"{site}/api/v1/usage", headers=bearer).status_code == 200

        # Watch a game at a price it already has, so the next pass alerts it.
        game = LOOPBACK.get(f"{site}/api/v1/games/{APPID}", headers=bearer).json()
        page = player.get("/account/watch", params={"appid": APPID})
        assert page.status_code == 200 and f"Watch {game['name']}" in page.text
        watch = {"csrf": CSRF.findall(page.text)[0], "appid": str(APPID)}
        watch |= {"condition": "below", "below_usd": f"{game['price_usd'] + 1:.2f}"}
        assert player.post("/account/watches", data=watch).status_code == 303
        wait_for(lambda: len(list(mail.glob("*.eml"))) == 2, 20, "the alert kept")
        alert, alert_links = kept_mail(mail, game["name"])
        assert alert["To"] == "player@example.com"
        assert {urlsplit(link).path.split("/")[1:3][0] for link in alert_links} >= {
            "game",
            "account",
        }
        # Marked alerted once the alert is kept (just after its file is written).
        wait_for(lambda: "alerted" in player.get("/account").text, 10, "the watch alerted")
    finally:
        run.stop()

    # Every link make run printed or mailed names the port it served on.
    printed = URL.findall(run.output)
    assert printed and all(urlsplit(u).netloc == f"127.0.0.1:{port}" for u in printed), printed
    assert all(urlsplit(u).netloc == f"127.0.0.1:{port}" for u in links + alert_links)
