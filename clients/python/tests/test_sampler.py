"""GranarySampler against a real HTTP server on 127.0.0.1 that records the plans it is sent."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import socket
import sys
import threading
import unittest
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List
from unittest import mock

from granary_sampler import (
    GranarySampler,
    GranaryWarning,
    PlanError,
    list_version,
    normalise_path,
    publish_plan,
)

try:
    import torch
    from torch.utils.data import DataLoader, Dataset, DistributedSampler, RandomSampler
except ImportError:  # the client itself needs no torch; the tests of it with torch samplers do
    torch = None
    Dataset = object

if torch is None and os.environ.get("GRANARY_TORCH") == "required":
    raise ImportError("GRANARY_TORCH=required but torch is not installed for " + sys.executable)
needs_torch = unittest.skipUnless(torch is not None, "torch is not installed")

PATHS = [f"train/{i:03d}.jpg" for i in range(20)]
BAD_REQUEST = {"title": "Bad Request", "detail": "files: 'x' is not in dataset 'd'"}


class Recorded:
    def __init__(self, path: str, headers: Dict[str, str], body: Dict[str, Any]) -> None:
        self.path = path
        self.headers = headers
        self.body = body


class PlanServer:
    """A ThreadingHTTPServer on an ephemeral port: records each POST and answers 202 {"id": job.rank}, or a 400."""

    def __init__(self, reject: bool = False) -> None:
        self.requests: List[Recorded] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append(Recorded(self.path, headers, body))
                if reject:
                    self._answer(400, BAD_REQUEST, "application/problem+json")
                else:
                    self._answer(202, {"id": f"{body['job']}.{body['rank']}"}, "application/json")

            def _answer(self, status: int, answer: Dict[str, Any], content_type: str) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def bodies(self) -> List[Dict[str, Any]]:
        return [r.body for r in self.requests]


def closed_port() -> str:
    """An endpoint nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class IndexDataset(Dataset):
    """Each item is its own index, so a loader's batches say which indices it read."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


class ListSampler:
    """A duck-typed sampler without torch: a fixed order."""

    def __init__(self, order: List[int]) -> None:
        self.order = order

    def __iter__(self):
        return iter(self.order)

    def __len__(self) -> int:
        return len(self.order)


class SamplerTest(unittest.TestCase):
    def setUp(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRANARY_")}
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.server = PlanServer()
        self.addCleanup(self.server.close)

    def wrap(self, sampler: Any, **kwargs: Any) -> GranarySampler:
        kwargs.setdefault("endpoint", self.server.endpoint)
        kwargs.setdefault("job", "job1")
        return GranarySampler(sampler, files=PATHS, dataset="imagenet", **kwargs)

    @needs_torch
    def test_random_sampler_order_is_published_and_yielded(self) -> None:
        expected = list(RandomSampler(range(20), generator=torch.Generator().manual_seed(42)))
        sampler = self.wrap(RandomSampler(range(20), generator=torch.Generator().manual_seed(42)), token="tok")

        order = list(sampler)

        self.assertEqual(order, expected)
        self.assertNotEqual(order, list(range(20)))
        [request] = self.server.requests
        self.assertEqual(request.path, "/api/v1/plans")
        self.assertEqual(request.headers["content-type"], "application/json")
        self.assertEqual(request.headers["authorization"], "Bearer tok")
        self.assertEqual(request.body, {
            "dataset": "imagenet",
            "job": "job1",
            "epoch": 0,
            "rank": 0,
            "worldSize": 1,
            "seed": 42,
            "listVersion": list_version(PATHS),
            "files": [PATHS[i] for i in expected],
        })
        self.assertEqual(sampler.last_plan_id, "job1.0")

    @needs_torch
    def test_no_authorization_without_token(self) -> None:
        list(self.wrap(RandomSampler(range(20))))

        [request] = self.server.requests
        self.assertNotIn("authorization", request.headers)

    def test_token_and_job_and_endpoint_from_environment(self) -> None:
        with mock.patch.dict(os.environ, {"GRANARY_TOKEN": "envtok", "GRANARY_JOB": "envjob",
                                          "GRANARY_ENDPOINT": self.server.endpoint}):
            sampler = GranarySampler(ListSampler([1, 0]), files=PATHS, dataset="imagenet")
            list(sampler)

        [request] = self.server.requests
        self.assertEqual(request.headers["authorization"], "Bearer envtok")
        self.assertEqual(request.body["job"], "envjob")
        self.assertEqual(sampler.last_plan_id, "envjob.0")

    @needs_torch
    def test_epochs_count_without_set_epoch(self) -> None:
        sampler = self.wrap(RandomSampler(range(20), generator=torch.Generator().manual_seed(7)))

        first, second = list(sampler), list(sampler)

        self.assertEqual([b["epoch"] for b in self.server.bodies()], [0, 1])
        self.assertNotEqual(first, second)
        self.assertEqual(self.server.bodies()[0]["files"], [PATHS[i] for i in first])
        self.assertEqual(self.server.bodies()[1]["files"], [PATHS[i] for i in second])

    def test_set_epoch_once_then_counting_goes_on_from_it(self) -> None:
        sampler = self.wrap(ListSampler([0, 1]))
        sampler.set_epoch(4)
        list(sampler)
        list(sampler)

        self.assertEqual([b["epoch"] for b in self.server.bodies()], [4, 5])

    @needs_torch
    def test_distributed_sampler_rank_share(self) -> None:
        bare = DistributedSampler(range(20), num_replicas=2, rank=1, shuffle=True, seed=5)
        bare.set_epoch(3)
        expected = list(bare)
        wrapped = DistributedSampler(range(20), num_replicas=2, rank=1, shuffle=True, seed=5)
        sampler = self.wrap(wrapped)

        sampler.set_epoch(3)
        order = list(sampler)

        self.assertEqual(wrapped.epoch, 3)
        self.assertEqual(order, expected)
        self.assertEqual(len(sampler), 10)
        self.assertEqual(len(sampler), len(wrapped))
        [body] = self.server.bodies()
        self.assertEqual((body["rank"], body["worldSize"], body["epoch"], body["seed"]), (1, 2, 3, 5))
        self.assertEqual(body["files"], [PATHS[i] for i in expected])
        self.assertEqual(sampler.last_plan_id, "job1.1")

    @needs_torch
    def test_data_loader_reads_the_published_order(self) -> None:
        for workers in (0, 2):
            with self.subTest(num_workers=workers):
                self.server.requests.clear()
                sampler = self.wrap(RandomSampler(range(20), generator=torch.Generator().manual_seed(3)))
                loader = DataLoader(IndexDataset(20), batch_size=4, sampler=sampler, num_workers=workers)

                read = [int(i) for batch in loader for i in batch]

                [body] = self.server.bodies()
                self.assertEqual(read, [PATHS.index(p) for p in body["files"]])
                self.assertEqual(sorted(read), list(range(20)))

    @needs_torch
    def test_server_down_warns_once_and_training_goes_on(self) -> None:
        generator = torch.Generator().manual_seed(11)
        bare = RandomSampler(range(20), generator=torch.Generator().manual_seed(11))
        sampler = self.wrap(RandomSampler(range(20), generator=generator), endpoint=closed_port())

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first, second = list(sampler), list(sampler)

        self.assertEqual(first, list(bare))
        self.assertEqual(second, list(bare))
        self.assertEqual(len(caught), 1)
        self.assertIs(caught[0].category, GranaryWarning)
        self.assertIn("Connection refused", str(caught[0].message))
        self.assertIsNone(sampler.last_plan_id)

    def test_each_distinct_failure_warns(self) -> None:
        rejecting = PlanServer(reject=True)
        self.addCleanup(rejecting.close)
        sampler = self.wrap(ListSampler([0, 1]), endpoint=closed_port())

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(sampler)
            sampler.endpoint = rejecting.endpoint
            list(sampler)
            list(sampler)

        self.assertEqual(len(caught), 2)
        self.assertIn("Connection refused", str(caught[0].message))
        self.assertIn("HTTP 400", str(caught[1].message))

    def test_rejected_plan_warns_with_the_problem_detail(self) -> None:
        rejecting = PlanServer(reject=True)
        self.addCleanup(rejecting.close)
        sampler = self.wrap(ListSampler([2, 0, 1]), endpoint=rejecting.endpoint)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            order = list(sampler)

        self.assertEqual(order, [2, 0, 1])
        self.assertEqual(len(caught), 1)
        self.assertIn("HTTP 400: Bad Request: files: 'x' is not in dataset 'd'", str(caught[0].message))
        self.assertEqual(len(rejecting.requests), 1)
        self.assertIsNone(sampler.last_plan_id)

    def test_publish_plan_on_its_own(self) -> None:
        plan = {"dataset": "d", "job": "j", "epoch": 0, "rank": 2, "worldSize": 4, "seed": 0,
                "listVersion": "0123456789abcdef", "files": ["a"]}

        answer = publish_plan(self.server.endpoint + "/", plan, token="t")

        self.assertEqual(answer, {"id": "j.2"})
        [request] = self.server.requests
        self.assertEqual((request.path, request.body), ("/api/v1/plans", plan))
        with self.assertRaises(PlanError) as raised:
            publish_plan(closed_port(), plan)
        self.assertIn("Connection refused", raised.exception.reason)

    def test_empty_share_publishes_nothing(self) -> None:
        list(self.wrap(ListSampler([])))

        self.assertEqual(self.server.requests, [])

    def test_prefix_and_normalisation(self) -> None:
        self.assertEqual(normalise_path("/mnt/g/ds/a/b.jpg", "/mnt/g/ds"), "a/b.jpg")
        self.assertEqual(normalise_path("/mnt/g/ds/a/b.jpg", "/mnt/g/ds/"), "a/b.jpg")
        self.assertEqual(normalise_path("/a/b.jpg"), "a/b.jpg")
        self.assertEqual(normalise_path("a/b.jpg"), "a/b.jpg")
        for bad in ("a/../b", "./a", "a//b", "a/", "", "a/\x01b"):
            with self.subTest(path=bad), self.assertRaises(ValueError):
                normalise_path(bad)
        with self.assertRaises(ValueError):
            normalise_path("/mnt/other/a.jpg", "/mnt/g/ds")

        sampler = GranarySampler(ListSampler([1, 0]), files=["/mnt/g/ds/a/b.jpg", "/mnt/g/ds/c.jpg"],
                                 dataset="ds", job="j", prefix="/mnt/g/ds", endpoint=self.server.endpoint)
        list(sampler)
        self.assertEqual(self.server.bodies()[0]["files"], ["c.jpg", "a/b.jpg"])

        with self.assertRaises(ValueError) as raised:
            GranarySampler(ListSampler([0]), files=["a/../b"], dataset="ds", job="j")
        self.assertIn("'a/../b'", str(raised.exception))

    def test_job_names(self) -> None:
        for bad in ("bad job", "a/b", "x" * 65, ""):
            with self.subTest(job=bad), self.assertRaises(ValueError):
                GranarySampler(ListSampler([0]), files=PATHS, dataset="ds", job=bad)
        with mock.patch.dict(os.environ, {"GRANARY_JOB": "no spaces allowed"}), self.assertRaises(ValueError):
            GranarySampler(ListSampler([0]), files=PATHS, dataset="ds")
        self.assertEqual(GranarySampler(ListSampler([0]), files=PATHS, dataset="ds", job="x" * 64).job, "x" * 64)

        job = GranarySampler(ListSampler([0]), files=PATHS, dataset="ds").job
        self.assertRegex(job, r"^[A-Za-z0-9._-]{1,64}$")
        self.assertRegex(job, rf"-{os.getpid()}-[0-9a-f]{{6}}$")

    def test_list_version(self) -> None:
        files = ["/mnt/g/ds/a/b.jpg", "/mnt/g/ds/c.jpg", "/mnt/g/ds/d/e/f.png"]
        expected = hashlib.sha256(b"a/b.jpg\nc.jpg\nd/e/f.png").hexdigest()[:16]

        sampler = GranarySampler(ListSampler([2]), files=files, dataset="ds", job="j", prefix="/mnt/g/ds",
                                 endpoint=self.server.endpoint)
        list(sampler)

        self.assertEqual(len(expected), 16)
        self.assertEqual(sampler.list_version, expected)
        self.assertEqual(self.server.bodies()[0]["listVersion"], expected)

    def test_seed_is_sent_as_a_signed_64_bit_number(self) -> None:
        class Generator:
            def initial_seed(self) -> int:
                return (1 << 64) - 1

        sampler = ListSampler([0])
        sampler.generator = Generator()

        self.assertEqual(self.wrap(sampler).seed, -1)
        self.assertEqual(self.wrap(sampler, seed=9).seed, 9)

    @needs_torch
    def test_pickles(self) -> None:
        bare = DistributedSampler(range(20), num_replicas=2, rank=0, shuffle=True, seed=1)
        sampler = self.wrap(DistributedSampler(range(20), num_replicas=2, rank=0, shuffle=True, seed=1))
        list(sampler)

        copy = pickle.loads(pickle.dumps(sampler))
        order = list(copy)

        self.assertEqual(order, list(bare))
        self.assertEqual([b["epoch"] for b in self.server.bodies()], [0, 1])
        self.assertEqual(copy.last_plan_id, "job1.0")


if __name__ == "__main__":
    unittest.main()
