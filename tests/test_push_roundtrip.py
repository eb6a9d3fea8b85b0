"""Push two release versions to a loopback Hub and load each back by tag with `datasets`.

Reads are served by olah (a self-hosted Hub mirror, PyPI ``olah``) from a git repository
(``mirrors-path``). No self-hostable server implements the Hub's write API, so this test
adds the five write routes that ``create_repo``, ``upload_folder`` and ``create_tag`` call
to olah's own app; they commit into the git repository olah serves. Everything binds
127.0.0.1 on a port the OS picks.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("datasets")
pytest.importorskip("huggingface_hub")
olah_server = pytest.importorskip("olah.server")
uvicorn = pytest.importorskip("uvicorn")

from execverify_data.release import ManifestError, ReleaseConfig, push_release  # noqa: E402
from execverify_data.release.builder import build_release  # noqa: E402

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def _write_routes(mirrors: Path, base: str):
    """Starlette routes of the Hub write API, committing into ``mirrors/datasets/<org>/<name>``."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    lock = threading.Lock()

    def repo_dir(org: str, name: str) -> Path:
        return mirrors / "datasets" / org / name

    async def create(request: Request):
        body = await request.json()
        path = repo_dir(body["organization"], body["name"])
        url = f"{base}/datasets/{body['organization']}/{body['name']}"
        if path.exists():  # the Hub answers 409 with the url; create_repo(exist_ok=True) reads it
            return JSONResponse({"error": "You already created this dataset repo", "url": url}, status_code=409)
        path.mkdir(parents=True)
        _git(path, "init", "-q", "-b", "main")
        _git(path, "commit", "-q", "--allow-empty", "-m", "initial commit")
        return JSONResponse({"url": url})

    async def validate_yaml(request: Request):
        return JSONResponse({"errors": [], "warnings": []})

    async def preupload(request: Request):
        body = await request.json()
        return JSONResponse({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in body["files"]]})

    async def commit(request: Request):
        org, name, rev = request.path_params["org"], request.path_params["name"], request.path_params["rev"]
        path = repo_dir(org, name)
        lines = [json.loads(line) for line in (await request.body()).decode().splitlines() if line.strip()]
        summary = next(item["value"]["summary"] for item in lines if item["key"] == "header")
        with lock:
            _git(path, "checkout", "-q", rev)
            for item in lines:
                if item["key"] == "file":
                    target = path / item["value"]["path"]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(base64.b64decode(item["value"]["content"]))
                elif item["key"] == "deletedFile":
                    (path / item["value"]["path"]).unlink(missing_ok=True)
                elif item["key"] != "header":
                    return JSONResponse({"error": f"unsupported operation {item['key']}"}, status_code=400)
            _git(path, "add", "-A")
            _git(path, "commit", "-q", "--allow-empty", "-m", summary)
            sha = _git(path, "rev-parse", "HEAD")
        return JSONResponse({"commitUrl": f"{base}/datasets/{org}/{name}/commit/{sha}", "commitOid": sha, "pullRequestUrl": None})

    async def tag(request: Request):
        org, name, rev = request.path_params["org"], request.path_params["name"], request.path_params["rev"]
        body = await request.json()
        with lock:
            _git(repo_dir(org, name), "tag", "-a", body["tag"], "-m", body.get("message") or body["tag"], rev)
        return JSONResponse({})

    prefix = "/api/datasets/{org}/{name}"
    return [
        Route("/api/repos/create", create, methods=["POST"]),
        Route("/api/validate-yaml", validate_yaml, methods=["POST"]),
        Route(prefix + "/preupload/{rev}", preupload, methods=["POST"]),
        Route(prefix + "/commit/{rev:path}", commit, methods=["POST"]),
        Route(prefix + "/tag/{rev:path}", tag, methods=["POST"]),
    ]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    from olah.configs import OlahConfig

    root = tmp_path_factory.mktemp("hub")
    mirrors = root / "mirrors"
    mirrors.mkdir()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    cfg = root / "olah.toml"
    cfg.write_text(
        "[basic]\n"
        f'host = "127.0.0.1"\nport = {port}\nrepos-path = "{root / "cache"}"\n'
        f'mirror-netloc = "127.0.0.1:{port}"\nmirror-lfs-netloc = "127.0.0.1:{port}"\n'
        f'mirrors-path = ["{mirrors}"]\n'
        "[accessibility]\noffline = true\n"
    )
    app = olah_server.app
    app.state.app_settings = olah_server.AppSettings(config=OlahConfig(str(cfg)))
    for route in reversed(_write_routes(mirrors, base)):
        app.router.routes.insert(0, route)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield base, mirrors
    server.should_exit = True
    thread.join(10)


def _load_counts(base: str, repo_id: str, revision: str, config: str, cache: Path) -> dict:
    code = (
        "import json, sys\nfrom datasets import load_dataset\n"
        f"ds = load_dataset({repo_id!r}, {config!r}, revision={revision!r})\n"
        "print(json.dumps({k: len(v) for k, v in ds.items()}))\n"
    )
    env = {**os.environ, "HF_ENDPOINT": base, "HF_HOME": str(cache), "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_HUB_DISABLE_XET": "1"}
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("HF_DATASETS_OFFLINE", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_push_two_versions_and_load_by_tag(hub, tmp_path):
    base, mirrors = hub
    repo_id = "execverify-test/execverify"
    folders = {}
    for version, seed in (("1.0.0", 0), ("1.0.1", 1)):
        out = tmp_path / f"v{version}"
        manifest = build_release(ReleaseConfig(version=version, n_examples=60, seed=seed, shard_size=5), out, workers=2)
        result = push_release(out, repo_id, tag=f"v{version}", endpoint=base, token="test-token")
        assert result.url == f"{base}/datasets/{repo_id}/tree/v{version}"
        folders[version] = manifest
    from huggingface_hub import HfApi

    refs = HfApi(endpoint=base, token="test-token").list_repo_refs(repo_id, repo_type="dataset")
    assert {t.name for t in refs.tags} == {"v1.0.0", "v1.0.1"}
    for version, manifest in folders.items():
        for config in ("trace", "codegen"):
            got = _load_counts(base, repo_id, f"v{version}", config, tmp_path / "hf")
            assert got == manifest["rows"][config], (version, config)
    assert folders["1.0.0"]["rows"] != folders["1.0.1"]["rows"] or folders["1.0.0"]["files"] != folders["1.0.1"]["files"]


def test_push_refuses_unverified_folder(hub, tmp_path):
    base, _ = hub
    out = tmp_path / "bad"
    out.mkdir()
    (out / "README.md").write_text("no manifest")
    with pytest.raises(ManifestError, match="MANIFEST.json"):
        push_release(out, "execverify-test/bad", endpoint=base, token="t")


def test_push_refuses_wrong_tag(tmp_path):
    from execverify_data.errors import InvalidArgument
    from execverify_data.release.manifest import MANIFEST

    out = tmp_path / "r"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"version": "1.0.0", "files": {}}))
    with pytest.raises(InvalidArgument, match="v1.0.0"):
        push_release(out, "org/name", tag="v2.0.0", endpoint="http://127.0.0.1:9")
    with pytest.raises(InvalidArgument, match="ORG/NAME"):
        push_release(out, "noslash", endpoint="http://127.0.0.1:9")


def test_cli_push_refuses_unverified_folder(tmp_path):
    from click.testing import CliRunner

    from execverify_data.cli import main

    (tmp_path / "README.md").write_text("x")
    result = CliRunner().invoke(main, ["push", str(tmp_path), "--repo-id", "org/name", "--endpoint", "http://127.0.0.1:9"])
    assert result.exit_code != 0 and "MANIFEST.json" in result.output


def test_push_dry_run_verifies_and_contacts_no_one(tmp_path):
    """Issue 31, item 4: ``push --dry-run`` checks the folder against its manifest, the tag and the repository id and
    says what would be pushed; the endpoint here answers nothing, so any request would fail."""
    from click.testing import CliRunner

    from execverify_data.cli import main
    from execverify_data.release.manifest import MANIFEST

    out = tmp_path / "r"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"version": "1.0.0", "files": {}, "seed": 0, "total_rows": 0}))
    result = push_release(out, "org/name", tag="v1.0.0", endpoint="http://127.0.0.1:9", dry_run=True)
    assert (result.url, result.commit, result.files) == ("http://127.0.0.1:9/datasets/org/name/tree/v1.0.0", "", 1)
    ran = CliRunner().invoke(main, ["push", str(out), "--repo-id", "org/name", "--tag", "v1.0.0", "--endpoint",
                                    "http://127.0.0.1:9", "--dry-run"])
    assert ran.exit_code == 0 and "nothing was pushed" in ran.output and "1 files would go to" in ran.output
    wrong = CliRunner().invoke(main, ["push", str(out), "--repo-id", "org/name", "--tag", "v2.0.0", "--dry-run"])
    assert wrong.exit_code == 2 and "does not match the release version" in wrong.output
