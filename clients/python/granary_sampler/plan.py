"""Epoch plans: the paths they carry, the file list's version, and the POST that publishes one."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import socket
import urllib.error
import urllib.request
from typing import Any, Dict, Iterable, List, Optional, Union

__version__ = "0.1.0"

PLANS_PATH = "/api/v1/plans"

# The server's own rule for job names (EpochPlan.JOB).
JOB_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")

# How much of a server's error text goes into a warning.
_MAX_REASON = 300


class PlanError(Exception):
    """A plan was not published; ``reason`` says why, in a form fit for one warning per reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalise_path(path: Union[str, "os.PathLike[str]"], prefix: str = "") -> str:
    """The path inside the dataset: ``prefix`` and any leading '/' stripped, no '.', '..' or empty segment."""
    text = os.fspath(path)
    if not isinstance(text, str):
        raise ValueError(f"file path {path!r} is not text")
    relative = text
    if prefix:
        root = prefix.rstrip("/")
        # A path outside the mount named by prefix would be planned as some other file of the dataset.
        if not relative.startswith(root + "/"):
            raise ValueError(f"file path {text!r} is not under prefix {prefix!r}")
        relative = relative[len(root):]
    relative = relative.lstrip("/")
    for segment in relative.split("/"):
        if segment in ("", ".", ".."):
            raise ValueError(
                f"file path {text!r} is not a file's path inside the dataset: "
                "it must not contain '.', '..' or empty segments"
            )
        # The server rejects control characters too; better to say so before training starts.
        if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in segment):
            raise ValueError(f"file path {text!r} contains control characters")
    return relative


def list_version(paths: Iterable[str]) -> str:
    """The version of a file list: the first 16 hex digits of sha256 over its paths joined by newlines."""
    return hashlib.sha256("\n".join(paths).encode("utf-8")).hexdigest()[:16]


def publish_plan(
    endpoint: str, plan: Dict[str, Any], *, token: Optional[str] = None, timeout: float = 5.0
) -> Dict[str, Any]:
    """POST ``plan`` to ``{endpoint}/api/v1/plans``; returns the server's JSON answer, raises PlanError otherwise."""
    url = endpoint.rstrip("/") + PLANS_PATH
    headers = {
        "content-type": "application/json",
        "accept": "application/json, application/problem+json",
        "user-agent": f"granary-sampler/{__version__}",
    }
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        url, data=json.dumps(plan).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as e:
        raise PlanError(f"POST {url}: HTTP {e.code}: {_problem_text(e)}") from None
    except urllib.error.URLError as e:
        if isinstance(e.reason, (socket.timeout, TimeoutError)):
            raise PlanError(f"POST {url}: no answer within {timeout} s") from None
        raise PlanError(f"POST {url}: {e.reason}") from None
    except (socket.timeout, TimeoutError):
        raise PlanError(f"POST {url}: no answer within {timeout} s") from None
    # OSError: the connection broke mid-answer; HTTPException: a garbled answer; ValueError: a malformed endpoint.
    except (OSError, http.client.HTTPException, ValueError) as e:
        raise PlanError(f"POST {url}: {type(e).__name__}: {e}") from None
    try:
        answer = json.loads(body) if body else {}
    except ValueError:
        answer = {}
    return answer if isinstance(answer, dict) else {}


def _problem_text(error: urllib.error.HTTPError) -> str:
    """The title and detail of an RFC 9457 problem body, else the raw body, truncated."""
    try:
        raw = error.read().decode("utf-8", errors="replace")
    except (OSError, http.client.HTTPException):
        raw = ""
    text = raw.strip()
    try:
        problem = json.loads(raw)
    except ValueError:
        problem = None
    if isinstance(problem, dict):
        parts: List[str] = [str(problem[k]) for k in ("title", "detail") if problem.get(k)]
        if parts:
            text = ": ".join(parts)
    text = text or str(error.reason)
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 3] + "..."
