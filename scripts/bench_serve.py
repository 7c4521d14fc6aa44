"""Starting a built `leadhub` for the Python benchmark scripts (bench-wakeup.py, pg-batch-floor.py)."""
import socket
import subprocess
import time
import urllib.request


def prepare(binary, env, email):
    """Migrates the database of `env`, adds the user `email` and returns a new API key of theirs."""
    subprocess.run([binary, "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([binary, "user", "add", "--email", email], env=env, check=True, capture_output=True)
    return subprocess.run([binary, "key", "create", "--email", email], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def serve(binary, env):
    """Starts `leadhub serve` on a free port; returns the process and its base URL once it is ready."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([binary, "serve"], env=dict(env, LEADHUB_BIND=f"127.0.0.1:{port}"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{base}/readyz", timeout=1):
                return process, base
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start")
